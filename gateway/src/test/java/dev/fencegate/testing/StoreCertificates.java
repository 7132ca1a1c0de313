package dev.fencegate.testing;

import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.util.ArrayList;
import java.util.List;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;

/**
 * Self-signed certificates for a store reached over TLS, made with the JDK's keytool: a PKCS#12
 * keystore for the store to serve, and its certificate as PEM for the gateway's {@code --upstream-ca}.
 */
public final class StoreCertificates {

    public static final String PASSWORD = "store-keystore";

    private final Path keystore;
    private final Path pem;

    private StoreCertificates(Path keystore, Path pem) {
        this.keystore = keystore;
        this.pem = pem;
    }

    /** @param san the names the certificate is for, as keytool spells them ({@code ip:127.0.0.1}, {@code dns:store.example}) */
    public static StoreCertificates make(Path dir, String name, String san) throws Exception {
        Path keystore = dir.resolve(name + ".p12");
        Path pem = dir.resolve(name + ".pem");
        keytool(dir, "-genkeypair", "-alias", name, "-keyalg", "EC", "-groupname", "secp256r1", "-dname", "CN=" + name,
                "-ext", "san=" + san, "-validity", "2", "-storetype", "PKCS12", "-keystore", keystore.toString(),
                "-storepass", PASSWORD);
        keytool(dir, "-exportcert", "-rfc", "-alias", name, "-keystore", keystore.toString(), "-storepass", PASSWORD,
                "-file", pem.toString());
        return new StoreCertificates(keystore, pem);
    }

    public Path keystore() {
        return keystore;
    }

    /** The certificate, the only one a gateway given this file as {@code --upstream-ca} trusts. */
    public Path pem() {
        return pem;
    }

    /** A server-side context serving this certificate. */
    public SSLContext serverContext() throws Exception {
        KeyStore store = KeyStore.getInstance("PKCS12");
        try (InputStream in = Files.newInputStream(keystore)) {
            store.load(in, PASSWORD.toCharArray());
        }
        KeyManagerFactory keys = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
        keys.init(store, PASSWORD.toCharArray());
        SSLContext context = SSLContext.getInstance("TLS");
        context.init(keys.getKeyManagers(), null, null);
        return context;
    }

    private static void keytool(Path dir, String... args) throws Exception {
        List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "keytool").toString()));
        command.addAll(List.of(args));
        Process process = new ProcessBuilder(command).directory(dir.toFile()).redirectErrorStream(true).start();
        String output = new String(process.getInputStream().readAllBytes());
        if (process.waitFor() != 0) {
            throw new IllegalStateException("keytool " + String.join(" ", args) + ": " + output);
        }
    }
}
