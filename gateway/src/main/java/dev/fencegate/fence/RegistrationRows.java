package dev.fencegate.fence;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Where an instance's registrations are written for other instances to see ({@code fence_inflight}
 * in PostgreSQL). Statements only: what the rows mean, and when to write them, is
 * {@link InstanceFences}' business.
 */
public interface RegistrationRows {

    /** A row as written: the resource, its lowest token, and the generation it now has. */
    record Written(ResourceKey resource, long minToken, long generation) {
    }

    /** A row to remove or narrow, only if it still has {@code generation}. */
    record Change(ResourceKey resource, long minToken, long generation) {
    }

    /** Nobody else to tell: a single instance. Rows "written" here are confirmed at once. */
    RegistrationRows NONE = new RegistrationRows() {
        @Override
        public List<Written> write(Map<ResourceKey, Long> minTokens, Duration length) {
            List<Written> written = new ArrayList<>(minTokens.size());
            minTokens.forEach((resource, minToken) -> written.add(new Written(resource, minToken, 1)));
            return written;
        }

        @Override
        public void tidy(List<Change> withdrawals, List<Change> narrowings) {
        }

        @Override
        public void withdrawAll() {
        }
    };

    /**
     * Writes rows covering at least {@code minTokens} for {@code length} from now, in one commit.
     * Blocks; throws {@link FenceStoreUnavailableException} when it cannot confirm them, saying
     * whether the statement was {@linkplain FenceStoreUnavailableException#sent sent}.
     */
    List<Written> write(Map<ResourceKey, Long> minTokens, Duration length);

    /**
     * Best effort: a row left behind (its withdrawal failed, or another transaction held it) only
     * delays other instances until it expires; a narrowing not made only leaves a row covering more.
     */
    void tidy(List<Change> withdrawals, List<Change> narrowings);

    /** Best effort, on a clean stop. */
    void withdrawAll();
}
