package dev.fencegate.fence;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** The regression guard's memory is bounded by its count and by the heap its keys take, whatever their length. */
class RememberedFencesTest {

    @Test
    void theLeastRecentlyUsedResourceIsForgottenPastTheCount() {
        RememberedFences remembered = new RememberedFences(2, Long.MAX_VALUE);
        remembered.raisedHere(new ResourceKey("/b/a"), 5);
        remembered.raisedHere(new ResourceKey("/b/b"), 6);
        remembered.highest(new ResourceKey("/b/a"));
        remembered.raisedHere(new ResourceKey("/b/c"), 7);

        assertThat(remembered.size()).isEqualTo(2);
        assertThat(remembered.highest(new ResourceKey("/b/a"))).hasValue(5);
        assertThat(remembered.highest(new ResourceKey("/b/b"))).isEmpty();
        assertThat(remembered.highest(new ResourceKey("/b/c"))).hasValue(7);
    }

    /** One writer of new keys thousands of characters long must not fill the heap under the count's bound. */
    @Test
    void longKeysAreForgottenOnceTheyTakeTheByteBudget() {
        long budget = 100_000;
        RememberedFences remembered = new RememberedFences(100_000, budget);
        String longName = "k".repeat(2_500);
        for (int i = 0; i < 1_000; i++) {
            remembered.raisedHere(new ResourceKey("/b/" + i + "-" + longName), 5);
        }

        int fits = (int) (budget / (2_500 + 8 + RememberedFences.ENTRY_BYTES));
        assertThat(remembered.size()).isBetween(fits - 2, fits + 2);
        assertThat(remembered.highest(new ResourceKey("/b/999-" + longName))).as("the newest is kept").hasValue(5);
        assertThat(remembered.highest(new ResourceKey("/b/0-" + longName))).as("the eldest is forgotten").isEmpty();

        remembered.raisedHere(new ResourceKey("/b/999-" + longName), 9);
        assertThat(remembered.highest(new ResourceKey("/b/999-" + longName))).as("a raise of a kept key").hasValue(9);
        remembered.raisedHere(new ResourceKey("/b/999-" + longName), 3);
        assertThat(remembered.highest(new ResourceKey("/b/999-" + longName))).as("never lowered").hasValue(9);
    }

    /**
     * Any role that may connect can send notices for any number of resources: the raises heard of
     * for resources this instance does not remember push out only each other, never a token it
     * confirmed, and one heard of for a resource it remembers is kept with it.
     */
    @Test
    void raisesHeardOfForOtherResourcesNeverPushOutATokenThisInstanceConfirmed() {
        RememberedFences remembered = new RememberedFences(1_000, Long.MAX_VALUE);
        ResourceKey admitted = new ResourceKey("/jobs/7");
        remembered.raisedHere(admitted, 10);
        for (int i = 0; i < 10_000; i++) {
            remembered.heardOf(new ResourceKey("/flood/" + i), 1);
        }

        assertThat(remembered.confirmed(admitted)).hasValue(10);
        assertThat(remembered.size()).as("resources with a token this instance confirmed").isEqualTo(1);
        assertThat(remembered.highest(new ResourceKey("/flood/9999"))).as("the newest heard of").hasValue(1);
        assertThat(remembered.highest(new ResourceKey("/flood/0"))).as("the eldest heard of").isEmpty();
        remembered.heardOf(new ResourceKey("/flood/9999"), 4);
        remembered.raisedHere(new ResourceKey("/flood/9999"), 3);
        assertThat(remembered.highest(new ResourceKey("/flood/9999"))).as("what was heard stays known").hasValue(4);
        assertThat(remembered.confirmed(new ResourceKey("/flood/9999"))).hasValue(3);
    }

    /**
     * A raise heard of keeps lower writers out, but only a fence this instance confirmed through
     * its own connection is one the store cannot rightly hold less than: a notice may be forged,
     * or outrun a read.
     */
    @Test
    void aRaiseHeardOfIsKnownButNotConfirmed() {
        RememberedFences remembered = new RememberedFences(100, Long.MAX_VALUE);
        ResourceKey key = new ResourceKey("/b/k");
        remembered.raisedHere(key, 5);
        remembered.heardOf(key, 100);
        remembered.readAt(key, 120);
        remembered.heardOf(key, 7);

        assertThat(remembered.highest(key)).hasValue(120);
        assertThat(remembered.confirmed(key)).as("admitted 5, read 120").hasValue(120);
        remembered.heardOf(key, 150);
        assertThat(remembered.confirmed(key)).as("heard of 150").hasValue(120);
        remembered.heardOf(new ResourceKey("/b/heard"), 9);
        assertThat(remembered.confirmed(new ResourceKey("/b/heard"))).isEmpty();
        assertThat(remembered.highest(new ResourceKey("/b/heard"))).hasValue(9);
    }
}
