package dev.fencegate.proxy;

/** What a store connection's {@link StoreResponseReceiver} hands what the store sends to: the exchange using the connection. */
interface StoreListener {

    void onStoreMessage(Object msg);

    /** The store's read batch ended. */
    void onStoreReadComplete();

    void onStoreWritable();

    /** The connection closed or failed ({@code cause}, or null for a close). */
    void onStoreClosed(Throwable cause);
}
