package dev.fencegate.proxy;

import dev.fencegate.config.TlsConfig;
import io.netty.buffer.ByteBufAllocator;
import io.netty.handler.ssl.ClientAuth;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import io.netty.handler.ssl.SslHandler;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.util.Optional;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.TrustManagerFactory;

/** The data port's TLS, built once at start from the configured keystores; absent when TLS is off. */
final class DataPortTls {

    private final SslContext context;

    private DataPortTls(SslContext context) {
        this.context = context;
    }

    static Optional<DataPortTls> of(TlsConfig config) {
        if (!config.enabled()) {
            return Optional.empty();
        }
        try {
            KeyManagerFactory keys = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
            keys.init(load(config.keystore(), config.keystorePassword()), config.keystorePassword().toCharArray());
            SslContextBuilder builder = SslContextBuilder.forServer(keys).protocols("TLSv1.3", "TLSv1.2");
            if (config.clientCertificatesRequired()) {
                TrustManagerFactory trust = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
                trust.init(load(config.clientTruststore(), config.clientTruststorePassword()));
                builder.trustManager(trust).clientAuth(ClientAuth.REQUIRE);
            }
            return Optional.of(new DataPortTls(builder.build()));
        } catch (IOException | GeneralSecurityException e) {
            throw new IllegalArgumentException("--tls-keystore: " + config.keystore() + " could not be used (" + e.getMessage() + ")", e);
        }
    }

    SslHandler newHandler(ByteBufAllocator allocator) {
        return context.newHandler(allocator);
    }

    private static KeyStore load(String file, String password) throws IOException, GeneralSecurityException {
        KeyStore store = KeyStore.getInstance("PKCS12");
        try (InputStream in = Files.newInputStream(Path.of(file))) {
            store.load(in, password.toCharArray());
        }
        return store;
    }
}
