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

    /** A write applied after a higher token's write to the same resource. */
    record Regression(AppliedWrite late, AppliedWrite higherBefore) {

        @Override
        public String toString() {
            return late.path() + ": write " + late.requestId() + " with token " + late.fencingToken() + " applied (#" + late.sequence()
                    + ") after write " + higherBefore.requestId() + " with token " + higherBefore.fencingToken() + " (#"
                    + higherBefore.sequence() + ")";
        }
    }

    /** Each apply whose token is below one applied earlier to the same resource. */
    static List<Regression> regressions(List<AppliedWrite> applied) {
        Map<String, AppliedWrite> highest = new HashMap<>();
        List<Regression> found = new ArrayList<>();
        for (AppliedWrite write : applied) {
            AppliedWrite before = highest.get(write.path());
            long token = Long.parseLong(write.fencingToken());
            if (before != null && token < Long.parseLong(before.fencingToken())) {
                found.add(new Regression(write, before));
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
