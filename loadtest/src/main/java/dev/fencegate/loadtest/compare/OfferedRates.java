package dev.fencegate.loadtest.compare;

import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

/** The fixed offered rates of each store, as fractions of a measured saturation throughput. */
final class OfferedRates {

    private OfferedRates() {
    }

    /**
     * @param saturation median saturation throughput by target id
     * @return rates by store, lowest first; a store whose basis is zero gets none
     */
    static Map<String, List<Double>> of(List<Target> targets, Map<String, Double> saturation,
                                        RateBasis basis, List<Double> fractions) {
        Map<String, Double> basisByStore = targets.stream()
                .filter(target -> basis == RateBasis.SLOWEST || target.route() == Route.DIRECT)
                .collect(Collectors.toMap(Target::store, target -> saturation.getOrDefault(target.id(), 0.0), Math::min));
        return basisByStore.entrySet().stream().collect(Collectors.toMap(Map.Entry::getKey,
                entry -> entry.getValue() < 1 ? List.<Double>of()
                        : fractions.stream().sorted().map(f -> (double) Math.max(1, Math.round(f * entry.getValue())))
                        .distinct().toList()));
    }

    static String describe(RateBasis basis, List<Double> fractions) {
        return fractions.stream().sorted().map(f -> Math.round(f * 100) + "%").collect(Collectors.joining(", "))
                + " of " + (basis == RateBasis.SLOWEST ? "the slowest target's" : "the direct")
                + " saturation throughput, per store";
    }
}
