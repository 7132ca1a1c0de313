package dev.fencegate.fence;

import java.util.List;

/**
 * Until when an admitted write may still be sent to the store and land before the registration it
 * was admitted under can lapse. Checked on the event loop right before each piece of the request
 * goes out (the head, every body chunk, the last included): this process may have paused between
 * the decision and the send, and a write sent late could land after a higher token's.
 */
public interface SendWindow {

    /** Not tied to any registration: a decision made outside an instance's admission (a bare store). */
    SendWindow OPEN = () -> false;

    /** Past it already: the write must not go out. */
    SendWindow CLOSED = () -> true;

    /** Whether the write may no longer be sent. A comparison of two longs, cheap enough for every chunk. */
    boolean closed();

    /** Closed as soon as any of {@code windows} is: a request that writes several resources. */
    static SendWindow allOf(List<SendWindow> windows) {
        if (windows.size() == 1) {
            return windows.get(0);
        }
        List<SendWindow> all = List.copyOf(windows);
        return () -> {
            for (SendWindow window : all) {
                if (window.closed()) {
                    return true;
                }
            }
            return false;
        };
    }
}
