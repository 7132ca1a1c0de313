package dev.fencegate.observability;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** What a client sends reaches a log line without the means to rewrite the line or fill the disk. */
class ClientTextTest {

    /** ESC [2K erases the line on a terminal and ESC [1G returns to its start: a forged audit line could follow. */
    @Test
    void controlCharactersAreWrittenAsEscapesSoATerminalShowsThem() {
        String forged = "/fences/%2Fb%2Fk\u001b[2K\u001b[1G07:20:00.000 WARN audit - raised\r\n\u007f\u0085\u009b";

        String shown = ClientText.shown(forged);

        assertThat(shown).doesNotContain("\u001b").doesNotContain("\r").doesNotContain("\n").doesNotContain("\u007f")
                .doesNotContain("\u0085").doesNotContain("\u009b");
        assertThat(shown).isEqualTo("/fences/%2Fb%2Fk\\x1B[2K\\x1B[1G07:20:00.000 WARN audit - raised\\x0D\\x0A\\x7F\\x85\\x9B");
    }

    /** A right-to-left override shows a line reversed from where it stands; separators end it as a newline would. */
    @Test
    void separatorsAndMarksThatReorderTextAreWrittenAsEscapes() {
        assertThat(ClientText.shown("/a\u202Etxt.exe\u2028next\u2066")).isEqualTo("/a\\u202Etxt.exe\\u2028next\\u2066");
        String cutInAPair = "a".repeat(ClientText.SHOWN - 1) + "\uD83D\uDE00";
        assertThat(ClientText.shown(cutInAPair)).as("never half a pair").isEqualTo("a".repeat(ClientText.SHOWN - 1) + "...(2 more characters)");
    }

    @Test
    void aLongValueIsCutNamingHowMuchWasLeftOut() {
        assertThat(ClientText.shown("a".repeat(4_000))).isEqualTo("a".repeat(ClientText.SHOWN) + "...(3744 more characters)");
        assertThat(ClientText.shown("/fences/%2Fb%2Fk")).isEqualTo("/fences/%2Fb%2Fk");
        assertThat(ClientText.shown("café")).isEqualTo("café");
    }
}
