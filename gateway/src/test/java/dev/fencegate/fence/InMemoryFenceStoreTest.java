package dev.fencegate.fence;

/** The contract against the reference implementation, so the contract itself is known to pass. */
class InMemoryFenceStoreTest extends FenceStoreContract {

    private final InMemoryFenceStore store = new InMemoryFenceStore();

    @Override
    protected FenceStore store() {
        return store;
    }
}
