package dev.fencegate.nemesis;

import dev.fencegate.demo.AppliedWrite;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/** The store's apply log read against the ordering guarantee: per resource, tokens never go down. */
final class ApplyOrder {

    private ApplyOrder() {
    }

    /** Each apply whose token is below one applied earlier to the same resource, described. */
    static List<String> regressions(List<AppliedWrite> applied) {
        Map<String, AppliedWrite> highest = new HashMap<>();
        List<String> found = new ArrayList<>();
        for (AppliedWrite write : applied) {
            AppliedWrite before = highest.get(write.path());
            long token = Long.parseLong(write.fencingToken());
            if (before != null && token < Long.parseLong(before.fencingToken())) {
                found.add(write.path() + ": write " + write.requestId() + " with token " + token + " applied (#" + write.sequence()
                        + ") after write " + before.requestId() + " with token " + before.fencingToken() + " (#" + before.sequence() + ")");
            } else {
                highest.put(write.path(), write);
            }
        }
        return found;
    }

    static boolean appliedId(List<AppliedWrite> applied, String requestId) {
        return applied.stream().anyMatch(write -> requestId.equals(write.requestId()));
    }
}
