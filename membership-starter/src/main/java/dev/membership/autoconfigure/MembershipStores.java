package dev.membership.autoconfigure;

import java.util.List;

import org.jspecify.annotations.Nullable;

import org.springframework.beans.factory.ListableBeanFactory;

/**
 * The choice of a store among the modules on the classpath
 * ({@link MembershipStoreOffer}s), for their auto-configurations: a store module calls
 * {@link #check} before it makes its store, so that two databases never split one cluster
 * by chance, and a {@code membership.store} that names no module fails the start.
 */
public final class MembershipStores {

	private MembershipStores() {
	}

	/** Every store module's offer in this application. */
	public static List<MembershipStoreOffer> offers(ListableBeanFactory beans) {
		return beans.getBeanProvider(MembershipStoreOffer.class).orderedStream().toList();
	}

	/**
	 * Fails when {@code membership.store} ({@code chosen}) is unset and more than one
	 * module can keep the cluster ({@link AmbiguousMembershipStoreException}), or names
	 * no module on the classpath ({@link NoMembershipStoreException}).
	 */
	public static void check(ListableBeanFactory beans, @Nullable String chosen) {
		List<MembershipStoreOffer> offers = offers(beans);
		if (chosen == null) {
			List<MembershipStoreOffer> ready = offers.stream().filter(MembershipStoreOffer::isReady).toList();
			if (ready.size() > 1) {
				throw new AmbiguousMembershipStoreException(ready);
			}
		}
		else if (offers.stream().noneMatch((offer) -> offer.store().equalsIgnoreCase(chosen))) {
			throw new NoMembershipStoreException(offers, chosen);
		}
	}

}
