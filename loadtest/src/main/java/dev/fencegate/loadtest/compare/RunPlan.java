package dev.fencegate.loadtest.compare;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The order of runs. Targets alternate run by run and the whole cycle repeats each round, so a
 * slow spell of the machine lands on every target rather than on one.
 */
final class RunPlan {

    record Step(Target target, int round, Double offeredRate) {
    }

    private RunPlan() {
    }

    static List<Step> saturation(List<Target> targets, int rounds) {
        List<Step> steps = new ArrayList<>();
        for (int round = 1; round <= rounds; round++) {
            for (Target target : targets) {
                steps.add(new Step(target, round, null));
            }
        }
        return steps;
    }

    /**
     * {@code ratesByStore}: the offered rates of each store's targets, lowest first. Odd rounds
     * climb the rates and even rounds descend, so warm-up or drift does not always land on the
     * same rate.
     */
    static List<Step> fixedRates(List<Target> targets, int rounds, Map<String, List<Double>> ratesByStore) {
        int levels = ratesByStore.values().stream().mapToInt(List::size).max().orElse(0);
        List<Step> steps = new ArrayList<>();
        for (int round = 1; round <= rounds; round++) {
            for (int i = 0; i < levels; i++) {
                int level = round % 2 == 1 ? i : levels - 1 - i;
                for (Target target : targets) {
                    List<Double> rates = ratesByStore.getOrDefault(target.store(), List.of());
                    if (level < rates.size()) {
                        steps.add(new Step(target, round, rates.get(level)));
                    }
                }
            }
        }
        return steps;
    }
}
