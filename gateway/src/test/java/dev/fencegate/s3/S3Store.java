package dev.fencegate.s3;

import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.Optional;
import java.util.Properties;
import java.util.stream.Stream;
import org.gaul.s3proxy.BlobStores;
import org.gaul.s3proxy.S3Proxy;
import org.gaul.s3proxy.auth.AuthenticationType;
import org.gaul.s3proxy.blobstore.BlobStore;
import org.gaul.s3proxy.blobstore.Constants;

/**
 * A real S3 store in this JVM: S3Proxy over a filesystem directory, on loopback. With
 * authentication it checks SigV2/SigV4 signatures, so a request the gateway altered fails.
 */
public final class S3Store implements AutoCloseable {

    public static final String IDENTITY = "fencegate-identity";
    public static final String CREDENTIAL = "fencegate-credential-0123456789";

    private final S3Proxy proxy;
    private final BlobStore blobs;
    private final Path directory;

    private final boolean overTls;

    private S3Store(S3Proxy proxy, BlobStore blobs, Path directory, boolean overTls) {
        this.proxy = proxy;
        this.blobs = blobs;
        this.directory = directory;
        this.overTls = overTls;
    }

    /** A store checking signatures for {@link #IDENTITY}; path-style only. */
    public static S3Store authenticated() {
        return start(AuthenticationType.AWS_V2_OR_V4, null);
    }

    /**
     * A store that takes unsigned requests, so raw requests can write through it, and that also
     * serves virtual-host style for buckets under {@code virtualHost} (path-style for Host {@code virtualHost}).
     */
    public static S3Store anonymous(String virtualHost) {
        return start(AuthenticationType.NONE, virtualHost, null, null);
    }

    /** A store that takes unsigned requests over TLS only ({@code https}), serving the PKCS#12 {@code keystore}'s certificate. */
    public static S3Store anonymousOverTls(Path keystore, String password) {
        return start(AuthenticationType.NONE, null, keystore, password);
    }

    private static S3Store start(AuthenticationType authentication, String virtualHost) {
        return start(authentication, virtualHost, null, null);
    }

    private static S3Store start(AuthenticationType authentication, String virtualHost, Path keystore, String password) {
        try {
            Path directory = Files.createTempDirectory("fencegate-s3");
            Properties properties = new Properties();
            properties.setProperty("jclouds.filesystem.basedir", directory.toString());
            properties.setProperty(Constants.PROPERTY_IDENTITY, IDENTITY);
            properties.setProperty(Constants.PROPERTY_CREDENTIAL, CREDENTIAL);
            BlobStore blobs = BlobStores.create("filesystem", properties);
            S3Proxy.Builder builder = S3Proxy.builder()
                    .blobStore(blobs)
                    .awsAuthentication(authentication, IDENTITY, CREDENTIAL)
                    .stopTimeout(0);
            if (keystore == null) {
                builder.endpoint(URI.create("http://127.0.0.1:0"));
            } else {
                builder.secureEndpoint(URI.create("https://127.0.0.1:0")).keyStore(keystore.toString(), password);
            }
            if (virtualHost != null) {
                builder.virtualHost(virtualHost);
            }
            S3Proxy proxy = builder.build();
            proxy.start();
            while (!"STARTED".equals(proxy.getState())) {
                Thread.sleep(10);
            }
            return new S3Store(proxy, blobs, directory, keystore != null);
        } catch (Exception e) {
            throw new IllegalStateException("S3Proxy did not start", e);
        }
    }

    public int port() {
        return overTls ? proxy.getSecurePort() : proxy.getPort();
    }

    /** The directory the filesystem blob store keeps buckets and objects in, one file per object. */
    public Path directory() {
        return directory;
    }

    public void createBucket(String bucket) {
        blobs.createContainer(bucket);
    }

    /** The object's bytes as the store holds them, read behind the gateway's back. */
    public Optional<String> object(String bucket, String key) {
        if (!blobs.blobExists(bucket, key)) {
            return Optional.empty();
        }
        try (var in = blobs.getBlob(bucket, key)) {
            return Optional.of(new String(in.readAllBytes(), java.nio.charset.StandardCharsets.UTF_8));
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

    @Override
    public void close() {
        try {
            proxy.stop();
            blobs.close();
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
        try (Stream<Path> files = Files.walk(directory)) {
            files.sorted(Comparator.reverseOrder()).forEach(path -> path.toFile().delete());
        } catch (IOException e) {
            // a temp directory left behind is harmless
        }
    }
}
