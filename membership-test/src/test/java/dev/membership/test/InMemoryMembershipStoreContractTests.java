package dev.membership.test;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import dev.membership.spi.MembershipStore;

/** The in-memory store passes the same contract as the MongoDB stores. */
class InMemoryMembershipStoreContractTests extends MembershipStoreContract {

	/** One "database" per namespace: the suite makes several clients of one. */
	private static final Map<String, InMemoryMembershipStore> databases = new ConcurrentHashMap<>();

	@Override
	protected MembershipStore createStore(String namespace) {
		return InMemoryMembershipStore
			.sharing(databases.computeIfAbsent(namespace, (n) -> new InMemoryMembershipStore()));
	}

}
