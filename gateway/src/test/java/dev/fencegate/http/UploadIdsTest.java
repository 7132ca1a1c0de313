package dev.fencegate.http;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** A write's multipart role from its query, and the upload id of a CreateMultipartUpload answer. */
class UploadIdsTest {

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        "PUT    | /b/k                             | None",
        "PUT    | /b/k?partNumber=1&uploadId=abc   | Continues:abc",
        "POST   | /b/k?uploadId=a%2Bb              | Continues:a+b",
        "DELETE | /b/k?UPLOADID=abc                | Continues:abc",
        "DELETE | /b/k?upload%49d=abc              | Continues:abc",
        "POST   | /b/k?uploads                     | Starts",
        "POST   | /b/k?uploads=                    | Starts",
        "POST   | /b/k?%75ploads                   | Starts",
        "PUT    | /b/k?uploads                     | None",
        "POST   | /b/k?uploadsX                    | None",
        "PUT    | /b/k?uploadId=a&uploadId=b       | Refused",
        "POST   | /b/k?uploads&uploadId=a          | Refused",
        "PUT    | /b/k?uploadId=                   | Refused",
        "PUT    | /b/k?uploadId                    | Refused",
        "PUT    | /b/k?uploadId=%zz                | Refused",
        "PUT    | /b/k?uploadId=a%00b              | Refused",
        "PUT    | /b/k?uploadId=a%01b              | Continues:a\u0001b",
    })
    void theRoleOfAWriteComesFromItsQueryAsTheStoreDecodesIt(String method, String target, String expected) {
        UploadIds.Role role = UploadIds.of(method, target);
        String actual = role instanceof UploadIds.Role.Continues continues ? "Continues:" + continues.uploadId()
                : role.getClass().getSimpleName();
        assertThat(actual).isEqualTo(expected);
    }

    @Test
    void theUploadIdIsReadFromACreateMultipartUploadAnswer() {
        assertThat(UploadIds.ofAnswer(bytes("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<InitiateMultipartUploadResult"
                + " xmlns=\"http://s3.amazonaws.com/doc/2006-03-01/\"><Bucket>b</Bucket><Key>k</Key>"
                + "<UploadId>VXBsb2Fk&amp;1</UploadId></InitiateMultipartUploadResult>"))).hasValue("VXBsb2Fk&1");
    }

    @Test
    void anAnswerWithoutExactlyOneUploadIdNamesNone() {
        assertThat(UploadIds.ofAnswer(bytes("<InitiateMultipartUploadResult><Key>k</Key></InitiateMultipartUploadResult>"))).isEmpty();
        assertThat(UploadIds.ofAnswer(bytes("<InitiateMultipartUploadResult><UploadId>a</UploadId><UploadId>b</UploadId>"
                + "</InitiateMultipartUploadResult>"))).isEmpty();
        assertThat(UploadIds.ofAnswer(bytes("<InitiateMultipartUploadResult><UploadId> </UploadId></InitiateMultipartUploadResult>"))).isEmpty();
        assertThat(UploadIds.ofAnswer(bytes("<Error><UploadId>a</UploadId></Error>"))).isEmpty();
        assertThat(UploadIds.ofAnswer(bytes("<InitiateMultipartUploadResult><X><UploadId>a</UploadId></X>"
                + "</InitiateMultipartUploadResult>"))).as("nested deeper").isEmpty();
        assertThat(UploadIds.ofAnswer(bytes("<!DOCTYPE x [<!ENTITY e \"a\">]><InitiateMultipartUploadResult><UploadId>&e;</UploadId>"
                + "</InitiateMultipartUploadResult>"))).isEmpty();
        assertThat(UploadIds.ofAnswer(bytes("not xml"))).isEmpty();
    }

    private static byte[] bytes(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }
}
