package dev.membership.test;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.util.Optional;

import org.jspecify.annotations.Nullable;

import dev.membership.spi.MembershipStore;
import dev.membership.spi.StoreException;

/**
 * The one in-memory database of a {@link SimulatedCluster}, and its clients, one per
 * node: while a test makes one candidate the leader of a group, the others' acquisitions
 * of it are refused (as if that candidate had just taken the lease), and the node under
 * test's calls fail while it is cut off.
 */
final class SimulatedDatabase {

	/** The node under test, as a candidate for a lease (peers are their ids). */
	static final String UNDER_TEST = "\0under-test";

	private final InMemoryMembershipStore data;

	private volatile boolean cutOff;

	private volatile @Nullable Gate gate;

	SimulatedDatabase(InMemoryMembershipStore data) {
		this.data = data;
	}

	/** The data itself, for what a test does behind every node's back. */
	InMemoryMembershipStore data() {
		return this.data;
	}

	/** A client for {@code candidate}: a peer's id, or {@link #UNDER_TEST}. */
	MembershipStore client(String candidate) {
		InMemoryMembershipStore client = InMemoryMembershipStore.sharing(this.data);
		return (MembershipStore) Proxy.newProxyInstance(MembershipStore.class.getClassLoader(),
				new Class<?>[] { MembershipStore.class }, (proxy, method, args) -> {
					if (method.getDeclaringClass() == Object.class) {
						return method.invoke(client, args);
					}
					if (candidate.equals(UNDER_TEST) && this.cutOff) {
						throw new StoreException("The database is unreachable (simulated)", null);
					}
					Gate gate = this.gate;
					if (gate != null && method.getName().equals("tryAcquire") && args[0].equals(gate.group())
							&& !candidate.equals(gate.candidate())) {
						return Optional.empty();
					}
					try {
						return method.invoke(client, args);
					}
					catch (InvocationTargetException ex) {
						throw ex.getCause();
					}
				});
	}

	/**
	 * From now on only {@code candidate} may acquire {@code group}, until
	 * {@link #openGate}.
	 */
	void gate(String group, String candidate) {
		this.gate = new Gate(group, candidate);
	}

	void openGate() {
		this.gate = null;
	}

	/**
	 * Whether the node under test's calls fail, as if the database were out of its reach.
	 */
	void cutOff(boolean cutOff) {
		this.cutOff = cutOff;
	}

	private record Gate(String group, String candidate) {
	}

}
