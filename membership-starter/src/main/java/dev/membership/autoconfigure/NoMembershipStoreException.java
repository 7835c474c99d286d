package dev.membership.autoconfigure;

import java.util.List;
import java.util.stream.Collectors;

import org.jspecify.annotations.Nullable;

/**
 * Membership is enabled but no {@link dev.membership.spi.MembershipStore} can be made:
 * without one the application would start, and its leader-only work would never run on
 * any node. Says why, from what the store modules on the classpath offer
 * ({@link MembershipStoreOffer}), or that there is none.
 */
public class NoMembershipStoreException extends IllegalStateException {

	private final String reason;

	NoMembershipStoreException(List<MembershipStoreOffer> offers, @Nullable String store) {
		this(reason(offers, store));
	}

	private NoMembershipStoreException(String reason) {
		super("No MembershipStore: " + reason);
		this.reason = reason;
	}

	/** Why there is no store. */
	public String reason() {
		return this.reason;
	}

	private static String reason(List<MembershipStoreOffer> offers, @Nullable String store) {
		if (offers.isEmpty()) {
			return "no store module is on the classpath and the application defines no MembershipStore bean";
		}
		String present = offers.stream()
			.map((offer) -> offer.store() + " (" + offer.module() + ")")
			.collect(Collectors.joining(", "));
		if (store != null) {
			MembershipStoreOffer chosen = offers.stream()
				.filter((offer) -> offer.store().equalsIgnoreCase(store))
				.findFirst()
				.orElse(null);
			if (chosen == null) {
				return "membership.store=" + store + " names no store module on the classpath; there are: " + present;
			}
			return "membership.store=" + store + ", and "
					+ ((chosen.missing() != null) ? chosen.missing() : chosen.module() + " made no store");
		}
		return offers.stream()
			.map((offer) -> offer.module() + ": " + ((offer.missing() != null) ? offer.missing() : "made no store"))
			.collect(Collectors.joining("; "));
	}

}
