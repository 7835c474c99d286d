package dev.membership.jdbc.autoconfigure;

import javax.sql.DataSource;

import org.jspecify.annotations.Nullable;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * Whether a take-over can end a paused holder's fenced transaction: it ends the
 * transaction's backend ({@code pg_terminate_backend}) once the older term's lease has
 * gone, which needs the same role, a superuser, or membership in
 * {@code pg_signal_backend}. Where the store connects as a role of its own without that
 * right, every take-over fails while such a transaction stays open, and the group has no
 * leader meanwhile: said at startup, with what to grant.
 */
final class SignalRight {

	private SignalRight() {
	}

	/** What to grant, or null when nothing is missing. */
	static @Nullable String problem(DataSource store, DataSource application) {
		JdbcTemplate onStore = new JdbcTemplate(store);
		String storeRole = onStore.queryForObject("SELECT current_user", String.class);
		String applicationRole = new JdbcTemplate(application).queryForObject("SELECT current_user", String.class);
		if (storeRole == null || storeRole.equals(applicationRole)) {
			return null;
		}
		Boolean may = onStore.queryForObject("SELECT rolsuper OR pg_has_role(current_user, 'pg_signal_backend', "
				+ "'USAGE') FROM pg_roles WHERE rolname = current_user", Boolean.class);
		if (Boolean.TRUE.equals(may)) {
			return null;
		}
		return "The membership store connects as role " + storeRole + " and the application as " + applicationRole
				+ ": a take-over cannot end a fenced transaction that a paused or dead holder left open "
				+ "(pg_terminate_backend), and the group has no leader until that transaction ends. GRANT "
				+ "pg_signal_backend TO " + storeRole + ", and set idle_in_transaction_session_timeout for "
				+ applicationRole;
	}

}
