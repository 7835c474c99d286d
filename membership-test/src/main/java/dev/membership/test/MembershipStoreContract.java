package dev.membership.test;

import java.util.concurrent.atomic.AtomicInteger;

import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.BeforeEach;

import dev.membership.spi.MembershipStore;

/**
 * What every {@link MembershipStore} must do, as JUnit 5 tests: extend this class, say
 * how to make a store on fresh collections, and the whole contract runs against it
 * (leases, node documents, the roster, and atomic acquisition among concurrent clients).
 * The MongoDB stores of the starter and {@link InMemoryMembershipStore} pass it; a store
 * of your own should too before a node trusts it: <pre>
 * class MyStoreContractTests extends MembershipStoreContract {
 *
 *     &#64;Override
 *     protected MembershipStore createStore(String namespace) {
 *         return new MyStore(database, namespace);
 *     }
 *
 * }
 * </pre> Needs JUnit 5 and AssertJ on the test classpath (this module brings both).
 */
public abstract class MembershipStoreContract
		implements LeaseContract, FireMarksContract, TakeOverContract, LivenessContract, RosterContract {

	private static final AtomicInteger namespaces = new AtomicInteger();

	private @Nullable String namespace;

	private @Nullable MembershipStore store;

	/**
	 * A new client of the store on collections named after {@code namespace}: called once
	 * per test with a new namespace, and again with the same one when a test needs
	 * several clients of one database.
	 */
	protected abstract MembershipStore createStore(String namespace);

	@BeforeEach
	final void createStoreOnFreshCollections() {
		this.namespace = "contract" + System.nanoTime() % 100000 + "_" + namespaces.incrementAndGet();
		this.store = createStore(this.namespace);
		this.store.initialize();
	}

	@Override
	public final MembershipStore store() {
		if (this.store == null) {
			throw new IllegalStateException("No store yet: the contract makes one before each test");
		}
		return this.store;
	}

	@Override
	public final MembershipStore anotherClient() {
		if (this.namespace == null) {
			throw new IllegalStateException("No store yet: the contract makes one before each test");
		}
		return createStore(this.namespace);
	}

}
