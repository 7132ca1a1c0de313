package dev.fencegate.http;

import java.io.ByteArrayInputStream;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import javax.xml.stream.XMLInputFactory;
import javax.xml.stream.XMLStreamConstants;
import javax.xml.stream.XMLStreamException;
import javax.xml.stream.XMLStreamReader;

/**
 * The object keys a DeleteObjects body names. The body must have exactly the shape S3
 * documents ({@code <Delete><Object><Key>k</Key>...</Object>...</Delete>}); anything else is
 * refused, so that the keys fenced here are the keys the store deletes. Parsed with the JDK's
 * own StAX parser, DTDs and external entities off.
 */
public final class DeleteObjectsKeys {

    public static final int MAX_KEYS = 1000;
    private static final Set<String> OBJECT_FIELDS = Set.of("Key", "VersionId", "ETag", "LastModifiedTime", "Size");
    private static final char[] HEX = "0123456789ABCDEF".toCharArray();

    /** Either the keys, in body order, or why the body was refused. */
    public sealed interface KeysParse {
        record Keys(List<String> keys) implements KeysParse {
        }

        record Refused(String detail) implements KeysParse {
        }
    }

    private DeleteObjectsKeys() {
    }

    public static KeysParse parse(byte[] body) {
        return parse(new ByteArrayInputStream(body));
    }

    /** As {@link #parse(byte[])}, read from {@code body} as it stands, so a body held elsewhere need not be copied. */
    public static KeysParse parse(InputStream body) {
        try {
            XMLStreamReader xml = factory().createXMLStreamReader(body);
            try {
                return new KeysParse.Keys(readDelete(xml));
            } finally {
                xml.close();
            }
        } catch (XMLStreamException | IllegalStateException e) {
            return new KeysParse.Refused("DeleteObjects body: " + firstLine(e.getMessage()));
        }
    }

    /**
     * The origin-form target of {@code key} in the bucket at {@code bucketPath}: the key's UTF-8
     * bytes percent-encoded except unreserved characters and '/', as clients put keys in paths.
     */
    public static String target(String bucketPath, String key) {
        StringBuilder target = new StringBuilder(bucketPath).append('/');
        for (byte b : key.getBytes(StandardCharsets.UTF_8)) {
            int octet = b & 0xFF;
            char c = (char) octet;
            if (octet < 0x80 && (Character.isLetterOrDigit(c) || c == '-' || c == '.' || c == '_' || c == '~' || c == '/')) {
                target.append(c);
            } else {
                target.append('%').append(HEX[octet >> 4]).append(HEX[octet & 0xF]);
            }
        }
        return target.toString();
    }

    private static XMLInputFactory factory() {
        XMLInputFactory factory = XMLInputFactory.newDefaultFactory();
        factory.setProperty(XMLInputFactory.SUPPORT_DTD, false);
        factory.setProperty(XMLInputFactory.IS_SUPPORTING_EXTERNAL_ENTITIES, false);
        factory.setProperty(XMLInputFactory.IS_REPLACING_ENTITY_REFERENCES, false);
        factory.setProperty(XMLInputFactory.IS_COALESCING, true);
        return factory;
    }

    private static List<String> readDelete(XMLStreamReader xml) throws XMLStreamException {
        expectStart(xml, "Delete");
        List<String> keys = new ArrayList<>();
        while (nextTag(xml) == XMLStreamConstants.START_ELEMENT) {
            switch (xml.getLocalName()) {
                case "Quiet" -> readText(xml);
                case "Object" -> keys.add(readObject(xml));
                default -> throw new IllegalStateException("unexpected element <" + xml.getLocalName() + "> in <Delete>");
            }
            if (keys.size() > MAX_KEYS) {
                throw new IllegalStateException("more than " + MAX_KEYS + " objects");
            }
        }
        if (keys.isEmpty()) {
            throw new IllegalStateException("no <Object> to delete");
        }
        // Only white space may follow: a comment or processing instruction there can hide what a
        // store that reads the body another way (as a form) takes for the request.
        while (xml.hasNext()) {
            int event = xml.next();
            boolean blank = event == XMLStreamConstants.SPACE || event == XMLStreamConstants.END_DOCUMENT
                    || event == XMLStreamConstants.CHARACTERS && xml.isWhiteSpace();
            if (!blank) {
                throw new IllegalStateException("content after </Delete>");
            }
        }
        return keys;
    }

    private static String readObject(XMLStreamReader xml) throws XMLStreamException {
        String key = null;
        while (nextTag(xml) == XMLStreamConstants.START_ELEMENT) {
            String name = xml.getLocalName();
            if (!OBJECT_FIELDS.contains(name)) {
                throw new IllegalStateException("unexpected element <" + name + "> in <Object>");
            }
            String text = readText(xml);
            if (name.equals("Key")) {
                if (key != null) {
                    throw new IllegalStateException("an <Object> with more than one <Key>");
                }
                key = checkKey(text);
            }
        }
        if (key == null) {
            throw new IllegalStateException("an <Object> without a <Key>");
        }
        return key;
    }

    /** Stores differ on whether they trim key text; a key whose edges are blank is refused, not guessed. */
    private static String checkKey(String key) {
        if (key.isEmpty()) {
            throw new IllegalStateException("an empty <Key>");
        }
        if (Character.isWhitespace(key.charAt(0)) || Character.isWhitespace(key.charAt(key.length() - 1))) {
            throw new IllegalStateException("a <Key> that begins or ends with white space");
        }
        return key;
    }

    /** The text of a leaf element; comments or markup inside it are refused, as stores may read them differently. */
    private static String readText(XMLStreamReader xml) throws XMLStreamException {
        StringBuilder text = new StringBuilder();
        while (true) {
            int event = xml.next();
            switch (event) {
                case XMLStreamConstants.CHARACTERS, XMLStreamConstants.CDATA, XMLStreamConstants.SPACE -> text.append(xml.getText());
                case XMLStreamConstants.END_ELEMENT -> {
                    return text.toString();
                }
                default -> throw new IllegalStateException("markup inside the text of an element");
            }
        }
    }

    private static void expectStart(XMLStreamReader xml, String name) throws XMLStreamException {
        if (nextTag(xml) != XMLStreamConstants.START_ELEMENT || !xml.getLocalName().equals(name)) {
            throw new IllegalStateException("expected <" + name + ">");
        }
    }

    /** Like {@link XMLStreamReader#nextTag()}, but a DTD or an entity reference is an error, not skipped. */
    private static int nextTag(XMLStreamReader xml) throws XMLStreamException {
        while (xml.hasNext()) {
            int event = xml.next();
            switch (event) {
                case XMLStreamConstants.START_ELEMENT -> {
                    // S3 puts nothing in attributes; a store whose parser maps them to fields (Jackson's
                    // XmlMapper does) could read a key from one, so none is accepted. Namespace
                    // declarations are not attributes here.
                    if (xml.getAttributeCount() > 0) {
                        throw new IllegalStateException("an attribute (" + xml.getAttributeLocalName(0) + ") on <"
                                + xml.getLocalName() + ">: S3's DeleteObjects has none");
                    }
                    return event;
                }
                case XMLStreamConstants.END_ELEMENT -> {
                    return event;
                }
                case XMLStreamConstants.DTD, XMLStreamConstants.ENTITY_REFERENCE, XMLStreamConstants.COMMENT,
                        XMLStreamConstants.PROCESSING_INSTRUCTION ->
                        throw new IllegalStateException("DTDs, entity references, comments and processing instructions are not accepted");
                case XMLStreamConstants.CHARACTERS -> {
                    if (!xml.isWhiteSpace()) {
                        throw new IllegalStateException("unexpected text");
                    }
                }
                default -> { }
            }
        }
        return XMLStreamConstants.END_DOCUMENT;
    }

    private static String firstLine(String message) {
        if (message == null) {
            return "malformed XML";
        }
        int newline = message.indexOf('\n');
        return newline < 0 ? message : message.substring(0, newline);
    }
}
