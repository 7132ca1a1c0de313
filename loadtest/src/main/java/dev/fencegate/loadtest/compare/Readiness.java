package dev.fencegate.loadtest.compare;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;

/** Waits until a started process answers HTTP, failing early with its log if it dies. */
final class Readiness {

    private Readiness() {
    }

    /** Any answer will do: a store answers 404 or 405 to a GET and is still up. */
    static void awaitAnyAnswer(ManagedProcess process, URI uri, Duration timeout) throws InterruptedException {
        await(process, uri, timeout, false);
    }

    static void awaitOk(ManagedProcess process, URI uri, Duration timeout) throws InterruptedException {
        await(process, uri, timeout, true);
    }

    private static void await(ManagedProcess process, URI uri, Duration timeout, boolean needOk)
            throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        String last = "no answer yet";
        while (System.nanoTime() < deadline) {
            if (!process.alive()) {
                throw new CompareException(process.obituary());
            }
            try {
                HttpRequest request = LocalHttp.get(uri);
                int status = LocalHttp.CLIENT.send(request, HttpResponse.BodyHandlers.discarding()).statusCode();
                if (!needOk || status == 200) {
                    return;
                }
                last = "status " + status;
            } catch (IOException e) {
                last = e.toString();
            }
            Thread.sleep(200);
        }
        throw new CompareException(process.name() + " not ready at " + uri + " after "
                + timeout.toSeconds() + " s (last: " + last + "); " + process.obituary());
    }
}
