#!/usr/bin/env python3
"""Summaries for profile-fence-writes.sh: what the gateway's threads were doing.

  summarise.py threads FILE  thread dumps (kill -3, as the JVM prints them to stdout): state of each thread group
  summarise.py jfr FILE      JFR jdk.ExecutionSample (on-CPU Java samples): by thread group and by code
"""
import collections
import re
import subprocess
import sys


def group(thread):
    """fence-check-7 -> fence-check; event loops and pool threads lose their numbers."""
    return re.sub(r"[-_ ]?\d+(-\d+)*$", "", thread) or thread


def classify_stack(frames, state):
    text = "\n".join(frames)
    if "ArrayBlockingQueue.take" in text or "LinkedBlockingQueue.take" in text:
        return "idle: waiting on its queue"
    if "HikariPool.getConnection" in text and ("park" in text or "ConcurrentBag.borrow" in text):
        return "waiting for a pool connection"
    if "org.postgresql" in text and re.search(r"(SocketInputStream|NioSocketImpl|SocketDispatcher)\.read|socketRead", text):
        return "waiting for PostgreSQL (socket read)"
    if "org.postgresql" in text:
        return "in pgJDBC, on CPU"
    if state == "BLOCKED":
        return "blocked on a monitor"
    if re.search(r"(epollWait|EPoll\.wait|KQueue|SelectorImpl\.select|IoUring)", text):
        return "idle: event loop polling"
    if "dev.fencegate" in text:
        return "in gateway code"
    if state in ("WAITING", "TIMED_WAITING"):
        return "parked elsewhere"
    return "other runnable"


# The JVM's own threads: compilers, GC helpers, JFR. Their CPU shows in the /proc split instead.
JVM_OWN = ("Reference Handler", "Finalizer", "Signal Dispatcher", "Common-Cleaner", "Cleaner", "Attach Listener",
           "Notification Thread", "DestroyJavaVM", "C1 ", "C2 ", "Sweeper", "Service Thread", "Monitor Deflation", "JFR ")


def threads(path):
    counts = collections.defaultdict(collections.Counter)
    with open(path, encoding="utf-8", errors="replace") as f:
        dumps = f.read().split("Full thread dump")[1:]
    for dump in dumps:
        for block in dump.split("\n\n"):
            head = re.match(r'"([^"]+)"', block)
            if not head:
                continue
            name = group(head.group(1))
            state = re.search(r"java.lang.Thread.State: (\w+)", block)
            if not state or name.startswith(JVM_OWN):
                continue
            frames = [line.strip() for line in block.splitlines() if line.strip().startswith("at ")]
            counts[name][classify_stack(frames, state.group(1))] += 1
    print(f"{len(dumps)} thread dumps")
    for name in sorted(counts):
        total = sum(counts[name].values())
        parts = ", ".join(f"{what} {100 * n / total:.0f}%" for what, n in counts[name].most_common())
        print(f"  {name} ({total / max(1, len(dumps)):.1f} threads): {parts}")


ROOMS = [
    ("pgJDBC", "org.postgresql."),
    ("HikariCP", "com.zaxxer.hikari."),
    ("gateway fence/store", "dev.fencegate.fence."),
    ("gateway fence/store", "dev.fencegate.store."),
    ("gateway proxy/http", "dev.fencegate."),
    ("Netty", "io.netty."),
    ("Micrometer", "io.micrometer."),
    ("JDK concurrency", "java.util.concurrent."),
    ("JDK net/nio", "sun.nio."),
    ("JDK net/nio", "java.net."),
    ("JDK net/nio", "java.nio."),
]

MARKERS = [
    "FenceChecker.check", "FenceChecker.work", "FenceAdmission.admitHeld", "FenceAdmission.attemptAll",
    "PostgresInflightRegistrations.coverAll", "PostgresInflightRegistrations.register",
    "PostgresInflightRegistrations.reconcile", "PostgresFenceStore.admitAll", "ReadAndJudge.judgeOne",
    "ReadAndJudge.judgeAll", "PostgresFenceStore.raise", "HikariPool.getConnection",
    "ProxyConnection.close", "QueryExecutorImpl.execute", "QueryExecutorImpl.sendQuery",
    "QueryExecutorImpl.processResults", "ClientRequestReceiver", "FenceQuestions", "StoreForwarding",
    "StoreExchange", "StoreRequestSender", "StoreAnswerRelay", "HeldChunks", "HttpObjectDecoder",
    "HttpObjectEncoder", "CompletableFuture", "SingleThreadEventExecutor.execute", "Unsafe.unpark",
    "LockSupport.unpark",
]


def room(frame):
    for label, prefix in ROOMS:
        if frame.startswith(prefix):
            return label
    return "other: " + ".".join(frame.split("(")[0].split(".")[:2])


def jfr(path):
    text = subprocess.run(["jfr", "print", "--events", "jdk.ExecutionSample", "--stack-depth", "64", path],
                          check=True, capture_output=True, text=True).stdout
    by_group = collections.Counter()
    by_room = collections.defaultdict(collections.Counter)
    by_marker = collections.defaultdict(collections.Counter)
    top_methods = collections.Counter()
    total = 0
    for event in text.split("jdk.ExecutionSample")[1:]:
        thread = re.search(r'sampledThread = "([^"]+)"', event)
        frames = re.findall(r"^\s+([\w$.<>]+\.[\w$<>]+)\(", event, re.M)
        if not thread or not frames:
            continue
        name = group(thread.group(1))
        total += 1
        by_group[name] += 1
        # The first frame that is not the JDK's own plumbing says whose work the sample is.
        owner = next((f for f in frames if not f.startswith(("java.", "jdk.", "sun."))), frames[0])
        by_room[name][room(owner)] += 1
        top_methods[frames[0]] += 1
        seen = set()
        for frame in frames:
            for marker in MARKERS:
                if marker in frame and marker not in seen:
                    seen.add(marker)
                    by_marker[name][marker] += 1
    print(f"{total} on-CPU Java samples")
    for name, n in by_group.most_common(8):
        rooms = ", ".join(f"{r} {100 * c / n:.0f}%" for r, c in by_room[name].most_common(6))
        print(f"  {name}: {100 * n / max(1, total):.0f}% of samples; by code: {rooms}")
        marks = ", ".join(f"{m} {100 * c / n:.0f}%" for m, c in by_marker[name].most_common(8))
        if marks:
            print(f"      inclusive: {marks}")
    print("  hottest leaf methods: " + ", ".join(f"{m} {100 * c / max(1, total):.1f}%" for m, c in top_methods.most_common(10)))


if __name__ == "__main__":
    if len(sys.argv) != 3 or sys.argv[1] not in ("threads", "jfr"):
        print(__doc__)
        sys.exit(2)
    threads(sys.argv[2]) if sys.argv[1] == "threads" else jfr(sys.argv[2])
