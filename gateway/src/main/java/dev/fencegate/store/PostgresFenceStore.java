package dev.fencegate.store;

import dev.fencegate.fence.Fence;
import dev.fencegate.fence.FenceClaim;
import dev.fencegate.fence.FenceDecision;
import dev.fencegate.fence.FencePolicy;
import dev.fencegate.fence.FenceStore;
import dev.fencegate.fence.FenceStoreUnavailableException;
import dev.fencegate.fence.FencingToken;
import dev.fencegate.fence.Holder;
import dev.fencegate.fence.ResourceKey;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.SQLWarning;
import java.util.Optional;
import javax.sql.DataSource;

/**
 * Fences as PostgreSQL rows. A claim at the current token costs one indexed read and no commit;
 * raising a fence is one conditional upsert, which at READ COMMITTED re-checks its WHERE against
 * the newest committed row, so two racing raises can never lower each other.
 */
public final class PostgresFenceStore implements FenceStore {

    private static final String READ = "SELECT token, holder FROM fence WHERE resource = ?";
    private static final String RAISE = """
            INSERT INTO fence AS f (resource, token, holder) VALUES (?, ?, ?)
            ON CONFLICT (resource) DO UPDATE
                SET token = EXCLUDED.token, holder = EXCLUDED.holder, updated_at = now()
                WHERE f.token < EXCLUDED.token""";

    private final DataSource dataSource;

    public PostgresFenceStore(DataSource dataSource) {
        this.dataSource = dataSource;
    }

    @Override
    public FenceDecision admit(FenceClaim claim) {
        try (Connection connection = dataSource.getConnection()) {
            FenceDecision decision = FencePolicy.decide(read(connection, claim.resource()), claim);
            if (decision instanceof FenceDecision.Admitted admitted && admitted.raised() && !raise(connection, claim)) {
                // Somebody recorded this token or a higher one since our read: judge again.
                decision = FencePolicy.decide(read(connection, claim.resource()), claim);
            }
            return decision;
        } catch (SQLException e) {
            throw unavailable("fence for " + claim.resource() + " could not be checked", e);
        }
    }

    @Override
    public Optional<Fence> read(ResourceKey resource) {
        try (Connection connection = dataSource.getConnection()) {
            return read(connection, resource);
        } catch (SQLException e) {
            throw unavailable("fence for " + resource + " could not be read", e);
        }
    }

    private static Optional<Fence> read(Connection connection, ResourceKey resource) throws SQLException {
        try (PreparedStatement statement = connection.prepareStatement(READ)) {
            statement.setString(1, resource.value());
            try (ResultSet row = statement.executeQuery()) {
                if (!row.next()) {
                    return Optional.empty();
                }
                return Optional.of(new Fence(resource, new FencingToken(row.getLong(1)),
                        Optional.ofNullable(row.getString(2)).map(Holder::new)));
            }
        }
    }

    /** True when this statement raised (or created) the fence; false when it was already as high. */
    private static boolean raise(Connection connection, FenceClaim claim) throws SQLException {
        try (PreparedStatement statement = connection.prepareStatement(RAISE)) {
            statement.setString(1, claim.resource().value());
            statement.setLong(2, claim.token().value());
            statement.setString(3, claim.holder().map(Holder::value).orElse(null));
            int rows = statement.executeUpdate();
            requireDurable(statement.getWarnings(), claim);
            return rows == 1;
        }
    }

    /**
     * A commit that comes back with a warning (a cancelled wait for a synchronous standby) is
     * visible but not durable; admitting on it could lose the fence in a failover.
     */
    private static void requireDurable(SQLWarning warning, FenceClaim claim) {
        if (warning != null) {
            throw new FenceStoreUnavailableException("fence for " + claim.resource() + " raised to " + claim.token()
                    + " but the commit is not confirmed durable: " + warning.getMessage());
        }
    }

    private static FenceStoreUnavailableException unavailable(String what, SQLException e) {
        return new FenceStoreUnavailableException(what + ": " + e.getMessage() + " (SQLState " + e.getSQLState() + ")", e);
    }
}
