package dev.membership.autoconfigure;

import java.util.List;
import java.util.stream.Collectors;

/**
 * More than one store module can keep the cluster (the application has both databases)
 * and {@code membership.store} does not say which: choosing silently could split the
 * cluster over two databases as instances differ.
 */
public class AmbiguousMembershipStoreException extends IllegalStateException {

	private final List<MembershipStoreOffer> offers;

	AmbiguousMembershipStoreException(List<MembershipStoreOffer> offers) {
		super("membership finds " + offers.size() + " stores that could keep the cluster ("
				+ offers.stream()
					.map((offer) -> offer.store() + " from " + offer.module())
					.collect(Collectors.joining(", "))
				+ ") and membership.store does not say which one does");
		this.offers = List.copyOf(offers);
	}

	/** The stores to choose from. */
	public List<MembershipStoreOffer> offers() {
		return this.offers;
	}

}
