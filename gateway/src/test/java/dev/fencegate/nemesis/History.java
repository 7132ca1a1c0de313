package dev.fencegate.nemesis;

import dev.fencegate.demo.AppliedWrite;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.stream.Collectors;

/** What the workers were told, read against what the store applied. */
record History(List<AppliedWrite> applied, List<Sent> sent) {

    /** Writes applied after a higher token's write to the same resource. */
    List<ApplyOrder.Regression> regressions() {
        return ApplyOrder.regressions(applied);
    }

    List<Sent> refusedButApplied() {
        Set<String> ids = appliedIds();
        return sent.stream().filter(Sent::refused).filter(write -> ids.contains(write.id())).toList();
    }

    List<Sent> acknowledgedButMissing() {
        Set<String> ids = appliedIds();
        return sent.stream().filter(Sent::acknowledged).filter(write -> !ids.contains(write.id())).toList();
    }

    /**
     * Real-time order, which held fences must keep through pauses and lost connections: once a
     * write with token t was acknowledged, a write sent afterwards with a lower token is refused,
     * whichever instance it reaches.
     */
    List<String> admittedBelowAnAcknowledgedToken() {
        List<String> found = new ArrayList<>();
        sent.stream().filter(Sent::acknowledged).collect(Collectors.groupingBy(Sent::path)).forEach((path, acknowledged) -> {
            for (Sent write : acknowledged) {
                acknowledged.stream().filter(earlier -> earlier.answeredNanos() < write.sentNanos() && earlier.token() > write.token())
                        .findFirst().ifPresent(earlier -> found.add(write + " admitted after " + earlier + " was acknowledged"));
            }
        });
        return found;
    }

    long count(java.util.function.Predicate<Sent> which) {
        return sent.stream().filter(which).count();
    }

    /** The counts a run prints, and the first few violations with the writes they concern. */
    String summary() {
        Map<String, Sent> byId = sent.stream().collect(Collectors.toMap(Sent::id, write -> write));
        StringBuilder text = new StringBuilder().append(String.format(
                "%d writes, %d applied, %d acknowledged, %d refused stale; statuses %s; by kind %s;"
                        + " tokens going down %d, refused but applied %d, acknowledged but missing %d, admitted below an acknowledged token %d",
                sent.size(), applied.size(), count(Sent::acknowledged), count(write -> write.status() == 412),
                new TreeMap<>(sent.stream().collect(Collectors.groupingBy(Sent::status, Collectors.counting()))),
                new TreeMap<>(sent.stream().collect(Collectors.groupingBy(Sent::kind, Collectors.counting()))),
                regressions().size(), refusedButApplied().size(), acknowledgedButMissing().size(),
                admittedBelowAnAcknowledgedToken().size()));
        regressions().stream().limit(10).forEach(regression -> text.append("\n  ").append(regression)
                .append("; the late write: ").append(byId.get(regression.late().requestId())));
        admittedBelowAnAcknowledgedToken().stream().limit(5).forEach(line -> text.append("\n  ").append(line));
        return text.toString();
    }

    private Set<String> appliedIds() {
        return applied.stream().map(AppliedWrite::requestId).collect(Collectors.toSet());
    }
}
