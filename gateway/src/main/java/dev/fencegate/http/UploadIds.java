package dev.fencegate.http;

import java.io.ByteArrayInputStream;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import javax.xml.stream.XMLInputFactory;
import javax.xml.stream.XMLStreamConstants;
import javax.xml.stream.XMLStreamException;
import javax.xml.stream.XMLStreamReader;

/**
 * The multipart-upload role of a write, read from its query, and the upload id a store hands
 * back for a new upload. S3 stores such as S3Proxy find an upload by its id alone, whatever key
 * the request names, so the gateway ties each id to the object it was created for.
 */
public final class UploadIds {

    /** Largest CreateMultipartUpload answer read for its id; S3's is a few hundred bytes. */
    public static final int MAX_ANSWER = 64 * 1024;

    /** What a write does to multipart uploads. */
    public sealed interface Role {
        /** Nothing: an ordinary write. */
        record None() implements Role {
        }

        /** CreateMultipartUpload ({@code POST ?uploads}): the store's answer names a new id. */
        record Starts() implements Role {
        }

        /** UploadPart, CompleteMultipartUpload, AbortMultipartUpload: uses an existing id. */
        record Continues(String uploadId) implements Role {
        }

        record Refused(String detail) implements Role {
        }
    }

    private UploadIds() {
    }

    /**
     * The role of a write to {@code target}. Parameter names are compared percent-decoded, as the
     * store's server decodes them; {@code uploadId} also without regard to case, so that no
     * spelling a store might honour escapes the check. Two ids, or an id with {@code uploads},
     * could be read either way by a store, so they are refused.
     */
    public static Role of(String method, String target) {
        int query = target.indexOf('?');
        if (query < 0) {
            return new Role.None();
        }
        List<String> ids = new ArrayList<>();
        boolean uploads = false;
        for (String parameter : target.substring(query + 1).split("&", -1)) {
            String[] pair = parameter.split("=", 2);
            Optional<String> name = decode(pair[0]);
            if (name.isEmpty()) {
                return new Role.Refused("undecodable query parameter name '" + pair[0] + "'");
            }
            if (name.get().equalsIgnoreCase("uploadId")) {
                Optional<String> value = decode(pair.length == 2 ? pair[1] : "");
                // A NUL cannot be recorded (nor looked up) as PostgreSQL text: refused as bad input, not as the database's failure.
                if (value.isEmpty() || value.get().isEmpty() || value.get().indexOf('\0') >= 0) {
                    return new Role.Refused("uploadId without a usable value");
                }
                ids.add(value.get());
            }
            uploads |= name.get().equals("uploads");
        }
        if (ids.size() > 1 || !ids.isEmpty() && uploads) {
            return new Role.Refused("a multipart request names one uploadId, and not with 'uploads'");
        }
        if (!ids.isEmpty()) {
            return new Role.Continues(ids.get(0));
        }
        return uploads && method.equals("POST") ? new Role.Starts() : new Role.None();
    }

    /**
     * The {@code UploadId} of a CreateMultipartUpload answer
     * ({@code <InitiateMultipartUploadResult>...<UploadId>id</UploadId>...}); empty when the body
     * has no single non-empty one. DTDs and external entities are off.
     */
    public static Optional<String> ofAnswer(byte[] body) {
        XMLInputFactory factory = XMLInputFactory.newDefaultFactory();
        factory.setProperty(XMLInputFactory.SUPPORT_DTD, false);
        factory.setProperty(XMLInputFactory.IS_SUPPORTING_EXTERNAL_ENTITIES, false);
        factory.setProperty(XMLInputFactory.IS_REPLACING_ENTITY_REFERENCES, false);
        factory.setProperty(XMLInputFactory.IS_COALESCING, true);
        try {
            XMLStreamReader xml = factory.createXMLStreamReader(new ByteArrayInputStream(body));
            try {
                return readId(xml);
            } finally {
                xml.close();
            }
        } catch (XMLStreamException | IllegalStateException e) {
            return Optional.empty();
        }
    }

    private static Optional<String> readId(XMLStreamReader xml) throws XMLStreamException {
        while (xml.hasNext() && xml.next() != XMLStreamConstants.START_ELEMENT) {
            if (xml.getEventType() == XMLStreamConstants.DTD) {
                return Optional.empty();
            }
        }
        if (!xml.isStartElement() || !xml.getLocalName().equals("InitiateMultipartUploadResult")) {
            return Optional.empty();
        }
        String id = null;
        int depth = 1;
        while (depth > 0 && xml.hasNext()) {
            int event = xml.next();
            if (event == XMLStreamConstants.START_ELEMENT) {
                if (depth == 1 && xml.getLocalName().equals("UploadId")) {
                    if (id != null) {
                        return Optional.empty();
                    }
                    id = xml.getElementText();
                } else {
                    depth++;
                }
            } else if (event == XMLStreamConstants.END_ELEMENT) {
                depth--;
            }
        }
        return id == null || id.isBlank() ? Optional.empty() : Optional.of(id);
    }

    private static Optional<String> decode(String encoded) {
        if (encoded.indexOf('%') < 0 && encoded.indexOf('+') < 0) {
            return Optional.of(encoded);
        }
        try {
            return Optional.of(URLDecoder.decode(encoded, StandardCharsets.UTF_8));
        } catch (IllegalArgumentException e) {
            return Optional.empty();
        }
    }
}
