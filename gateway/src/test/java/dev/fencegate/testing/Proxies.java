package dev.fencegate.testing;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;

/** For tests that wrap a JDBC interface in a {@link java.lang.reflect.Proxy} to watch or bend it. */
public final class Proxies {

    private Proxies() {
    }

    /** Calls {@code method} on {@code target}, throwing what it throws rather than its wrapper. */
    public static Object invoke(Method method, Object target, Object[] args) throws Throwable {
        try {
            return method.invoke(target, args);
        } catch (InvocationTargetException e) {
            throw e.getCause();
        }
    }
}
