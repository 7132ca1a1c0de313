package dev.fencegate.testing;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.function.Function;
import java.util.function.Supplier;
import java.util.stream.Stream;
import org.junit.jupiter.api.Named;

/**
 * Generated cases for {@code @ParameterizedTest @MethodSource} tests, from one seed per JVM: the
 * seed is {@code -Dfencegate.test.seed} when given, fresh otherwise, and is printed at first use
 * and named in every case, so a failing case can be replayed exactly. Case {@code i} of a named
 * generator depends only on the seed, the name and {@code i}, not on the other cases.
 */
public final class SeededCases {

    public static final long SEED = Long.getLong("fencegate.test.seed", new Random().nextLong());

    static {
        System.out.println("SeededCases seed " + SEED + " (replay with -Dfencegate.test.seed=" + SEED + ")");
    }

    private SeededCases() {
    }

    /** {@code count} values of {@code generator}, each named by the seed and its index. */
    public static <T> Stream<Named<T>> cases(String name, int count, Function<Gen, T> generator) {
        return values(name, count, generator).stream().map(new Function<T, Named<T>>() {
            private int index;

            @Override
            public Named<T> apply(T value) {
                return Named.of("seed " + SEED + " case " + index++, value);
            }
        });
    }

    /** The same values as {@link #cases}, unnamed: for checking what the generator covers. */
    public static <T> List<T> values(String name, int count, Function<Gen, T> generator) {
        List<T> values = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            values.add(generator.apply(new Gen(new Random(SEED ^ (name.hashCode() * 0x9E3779B97F4A7C15L) ^ (i * 0xC2B2AE3D27D4EB4FL)))));
        }
        return values;
    }

    /** A source of random choices for one case. */
    public static final class Gen {
        private final Random random;

        Gen(Random random) {
            this.random = random;
        }

        /** Uniform in {@code [min, max]}, both included. */
        public long longBetween(long min, long max) {
            // The bound is exclusive: draw from one below and shift, so that Long.MAX_VALUE itself can come out.
            return random.nextLong(min - 1, max) + 1;
        }

        /** Uniform in {@code [min, max]}, both included. */
        public int intBetween(int min, int max) {
            return random.nextInt(min, max + 1);
        }

        public boolean chance(double probability) {
            return random.nextDouble() < probability;
        }

        @SafeVarargs
        public final <T> T pick(T... choices) {
            return choices[random.nextInt(choices.length)];
        }

        public <T> T pick(List<T> choices) {
            return choices.get(random.nextInt(choices.size()));
        }

        /** An index into {@code weights}, chosen in proportion to them: {@code frequency(6, 4, 1)} gives 0 most often. */
        public int frequency(int... weights) {
            int roll = random.nextInt(java.util.Arrays.stream(weights).sum());
            for (int i = 0; i < weights.length; i++) {
                roll -= weights[i];
                if (roll < 0) {
                    return i;
                }
            }
            throw new AssertionError("weights must be positive");
        }

        /** A string of {@code min} to {@code max} characters drawn from {@code alphabet}. */
        public String string(char[] alphabet, int min, int max) {
            int length = intBetween(min, max);
            StringBuilder out = new StringBuilder(length);
            for (int i = 0; i < length; i++) {
                out.append(alphabet[random.nextInt(alphabet.length)]);
            }
            return out.toString();
        }

        /** {@code min} to {@code max} values of {@code element}. */
        public <T> List<T> list(int min, int max, Supplier<T> element) {
            int size = intBetween(min, max);
            List<T> out = new ArrayList<>(size);
            for (int i = 0; i < size; i++) {
                out.add(element.get());
            }
            return out;
        }
    }
}
