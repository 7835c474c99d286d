package dev.membership.jdbc;

import java.time.Duration;
import java.util.Objects;
import java.util.regex.Pattern;

/**
 * The PostgreSQL store's settings.
 *
 * @param tablePrefix the start of every table's name ({@code membership_}:
 * {@code membership_leases}, {@code membership_nodes}, {@code membership_roster});
 * letters, digits and underscores, optionally after a schema name and a dot
 * ({@code coordination.membership_})
 * @param operationTimeout the longest any statement may take (PostgreSQL cancels it after
 * that); must be shorter than the lease
 * @param initializeSchema whether {@link JdbcMembershipStore#initialize()} creates the
 * tables when absent
 */
public record JdbcStoreSettings(String tablePrefix, Duration operationTimeout, boolean initializeSchema) {

	private static final Pattern PREFIX = Pattern.compile("([A-Za-z_][A-Za-z0-9_]*\\.)?[A-Za-z_][A-Za-z0-9_]*");

	public JdbcStoreSettings {
		Objects.requireNonNull(tablePrefix, "tablePrefix");
		Objects.requireNonNull(operationTimeout, "operationTimeout");
		if (!PREFIX.matcher(tablePrefix).matches() || tablePrefix.length() > 48) {
			throw new IllegalArgumentException("The table prefix '" + tablePrefix + "' is not an unquoted PostgreSQL "
					+ "name of at most 48 characters (letters, digits, underscores, optionally after 'schema.')");
		}
		if (operationTimeout.isNegative() || operationTimeout.isZero()) {
			throw new IllegalArgumentException("The operation timeout must be positive, not " + operationTimeout);
		}
	}

	/**
	 * Prefix {@code membership_}, statements cancelled after 5 s, tables created when
	 * absent.
	 */
	public static JdbcStoreSettings defaults() {
		return new JdbcStoreSettings("membership_", Duration.ofSeconds(5), true);
	}

	/** These settings with another table prefix. */
	public JdbcStoreSettings withTablePrefix(String prefix) {
		return new JdbcStoreSettings(prefix, this.operationTimeout, this.initializeSchema);
	}

	String table(String name) {
		return this.tablePrefix + name;
	}

}
