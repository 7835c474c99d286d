package dev.membership.autoconfigure;

import java.time.Duration;
import java.util.List;

import org.jspecify.annotations.Nullable;

import dev.membership.InvalidMembershipSettingsException;
import dev.membership.InvalidMembershipSettingsException.Violation;
import dev.membership.spi.MembershipSettings;

/**
 * A store module's operation timeout ({@code membership.<store>.operation-timeout}),
 * checked alike for every store: positive, at least {@value #MIN_MILLIS} ms (shorter than
 * a round trip can be trusted to take), and shorter than the lease (one hung call must
 * not outlast the lease it renews). Unset, it follows the renewal interval.
 */
public final class StoreOperationTimeout {

	static final long MIN_MILLIS = 50;

	private StoreOperationTimeout() {
	}

	/**
	 * The timeout to use: {@code timeout}, or the renewal interval when unset.
	 * @param store the store's properties' name ({@code mongo}, {@code jdbc})
	 * @throws InvalidMembershipSettingsException naming the property when it cannot be
	 * used
	 */
	public static Duration of(String store, @Nullable Duration timeout, MembershipSettings settings) {
		String property = store + ".operation-timeout";
		if (timeout != null && (timeout.isZero() || timeout.isNegative())) {
			throw invalid(List.of(property), "must be a positive duration (was " + timeout + ")");
		}
		Duration effective = (timeout != null) ? timeout : settings.renewalInterval();
		if (effective.toMillis() < MIN_MILLIS) {
			throw invalid((timeout != null) ? List.of(property) : List.of("renewal-interval", property),
					"every database call would have to finish within " + effective.toMillis() + " ms"
							+ ((timeout != null) ? "" : " (the operation timeout follows renewal-interval when unset)")
							+ ", less than " + MIN_MILLIS + " ms, shorter than a database round trip can be trusted to "
							+ "take; a bare number means seconds (write 5 or 5s, not 5ms)");
		}
		if (effective.compareTo(settings.leaseDuration()) >= 0) {
			throw invalid(List.of(property, "lease-duration"),
					"membership." + property + " (" + effective
							+ ") must be shorter than the lease (membership.lease-duration=" + settings.leaseDuration()
							+ "), or one hung call would outlast the lease it renews");
		}
		return effective;
	}

	private static InvalidMembershipSettingsException invalid(List<String> settings, String message) {
		return new InvalidMembershipSettingsException(List.of(new Violation(settings, message)));
	}

}
