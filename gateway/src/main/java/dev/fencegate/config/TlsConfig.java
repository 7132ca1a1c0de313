package dev.fencegate.config;

import java.nio.file.Files;
import java.nio.file.Path;

/**
 * TLS on the data port, from PKCS#12 keystores. With a client truststore, every client must
 * present a certificate it trusts: mutual TLS, the data port's worker authentication. And the
 * certificate authorities an {@code https} store's certificate must chain to ({@code storeCa}, a
 * PEM file; empty for the JDK's trusted roots).
 */
public record TlsConfig(String keystore, String keystorePassword, String clientTruststore, String clientTruststorePassword,
                        String storeCa) {

    public TlsConfig {
        keystore = blankIfNull(keystore);
        keystorePassword = blankIfNull(keystorePassword);
        clientTruststore = blankIfNull(clientTruststore);
        clientTruststorePassword = blankIfNull(clientTruststorePassword);
        storeCa = blankIfNull(storeCa);
        if (!storeCa.isEmpty() && !Files.isReadable(Path.of(storeCa))) {
            throw new IllegalArgumentException("--upstream-ca: '" + storeCa + "' (expected a readable PEM file of CA certificates)");
        }
        if (!keystore.isEmpty() && !Files.isReadable(Path.of(keystore))) {
            throw new IllegalArgumentException("--tls-keystore: '" + keystore + "' (expected a readable PKCS#12 file)");
        }
        if (!clientTruststore.isEmpty() && keystore.isEmpty()) {
            throw new IllegalArgumentException("--tls-client-truststore: set without --tls-keystore (expected TLS to be on for client certificates)");
        }
        if (!clientTruststore.isEmpty() && !Files.isReadable(Path.of(clientTruststore))) {
            throw new IllegalArgumentException("--tls-client-truststore: '" + clientTruststore + "' (expected a readable PKCS#12 file)");
        }
    }

    /** TLS on the data port; an https store's certificate checked against the JDK's trusted roots. */
    public TlsConfig(String keystore, String keystorePassword, String clientTruststore, String clientTruststorePassword) {
        this(keystore, keystorePassword, clientTruststore, clientTruststorePassword, "");
    }

    public static TlsConfig off() {
        return new TlsConfig("", "", "", "", "");
    }

    /** The same data port, and an https store's certificate checked against the CA certificates in {@code pemFile}. */
    public TlsConfig trustingStoreCa(String pemFile) {
        return new TlsConfig(keystore, keystorePassword, clientTruststore, clientTruststorePassword, pemFile);
    }

    public boolean enabled() {
        return !keystore.isEmpty();
    }

    public boolean clientCertificatesRequired() {
        return !clientTruststore.isEmpty();
    }

    private static String blankIfNull(String value) {
        return value == null ? "" : value;
    }

    /** Never the passwords. */
    @Override
    public String toString() {
        return "TlsConfig[keystore=" + (keystore.isEmpty() ? "none" : keystore) + ", clientTruststore="
                + (clientTruststore.isEmpty() ? "none" : clientTruststore) + ", storeCa=" + (storeCa.isEmpty() ? "JDK roots" : storeCa) + "]";
    }
}
