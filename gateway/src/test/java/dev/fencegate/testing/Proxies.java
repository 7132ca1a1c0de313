package dev.fencegate.testing;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import javax.sql.DataSource;

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

    /** A call on a connection, made or bent by a test. */
    public interface ConnectionCall {
        Object call(Connection connection, Method method, Object[] args) throws Throwable;
    }

    /** {@code dataSource}, each call on its connections going through {@code call}. */
    public static DataSource connectionsThrough(DataSource dataSource, ConnectionCall call) {
        return (DataSource) Proxy.newProxyInstance(Proxies.class.getClassLoader(), new Class<?>[] {DataSource.class},
                (proxy, method, args) -> {
                    Object result = invoke(method, dataSource, args);
                    if (!method.getName().equals("getConnection")) {
                        return result;
                    }
                    Connection connection = (Connection) result;
                    return Proxy.newProxyInstance(Proxies.class.getClassLoader(), new Class<?>[] {Connection.class},
                            (c, m, a) -> call.call(connection, m, a));
                });
    }
}
