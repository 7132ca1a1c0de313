package dev.fencegate.config;

import java.util.Arrays;
import java.util.stream.Collectors;

/** How the store behind the gateway names objects, which decides what a write is fenced under. */
public enum StoreKind {
    /** A store of unknown kind: the path names the object; collection paths are refused. */
    HTTP("http"),
    /** WebDAV (nginx's dav module): the path; collection paths refused, as DELETE /dir/ removes a tree. */
    WEBDAV("webdav"),
    /** S3 addressed path-style, /bucket/key; Hosts under the virtual-host domains refused. */
    S3_PATH("s3-path"),
    /** S3 with virtual hosting on: the Host may name the bucket, under a base domain or CNAME style. */
    S3_VIRTUAL_HOST("s3-virtual-host");

    private final String value;

    StoreKind(String value) {
        this.value = value;
    }

    public String value() {
        return value;
    }

    public static StoreKind parse(String text) {
        return Arrays.stream(values()).filter(kind -> kind.value.equals(text)).findFirst()
                .orElseThrow(() -> new IllegalArgumentException("--store-kind: '" + text + "' (expected "
                        + Arrays.stream(values()).map(StoreKind::value).collect(Collectors.joining(", ")) + ")"));
    }
}
