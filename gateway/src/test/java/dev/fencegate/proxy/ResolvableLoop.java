package dev.fencegate.proxy;

import io.netty.channel.EventLoop;
import io.netty.util.concurrent.DefaultPromise;
import io.netty.util.concurrent.GlobalEventExecutor;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;

/**
 * An EmbeddedEventLoop behind a proxy that also has a termination future (never completed),
 * which Netty's address resolvers ask for: then a Bootstrap can connect on it.
 */
final class ResolvableLoop {

    private ResolvableLoop() {
    }

    static EventLoop wrap(EventLoop embedded) {
        DefaultPromise<Void> neverTerminated = new DefaultPromise<>(GlobalEventExecutor.INSTANCE);
        return (EventLoop) Proxy.newProxyInstance(ResolvableLoop.class.getClassLoader(), new Class<?>[] {EventLoop.class},
                (proxy, method, args) -> switch (method.getName()) {
                    case "terminationFuture" -> neverTerminated;
                    case "next" -> proxy;
                    case "equals" -> proxy == args[0];
                    case "hashCode" -> System.identityHashCode(proxy);
                    default -> {
                        try {
                            yield method.invoke(embedded, args);
                        } catch (InvocationTargetException e) {
                            throw e.getCause();
                        }
                    }
                });
    }
}
