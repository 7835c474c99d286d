package dev.membership.testsupport;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import dev.membership.spi.MembershipStore;
import dev.membership.test.InMemoryMembershipStore;

/**
 * The test kit's in-memory store under a {@link TestCluster}: each node a view of its own
 * ({@link InMemoryMembershipStore#sharing}) of one store per namespace, times by the
 * system clock. What the engine's behaviour tests run on, so that they need no database
 * and every store's module can run them on its own.
 */
public final class InMemoryStores implements TestCluster.Stores {

	private final Map<String, InMemoryMembershipStore> stores = new ConcurrentHashMap<>();

	/** A cluster of plain-Java nodes on a store of its own. */
	public static TestCluster cluster() {
		return new TestCluster(new InMemoryStores());
	}

	@Override
	public MembershipStore create(String namespace) {
		return InMemoryMembershipStore
			.sharing(this.stores.computeIfAbsent(namespace, (name) -> new InMemoryMembershipStore()));
	}

}
