package dev.membership.simulation;

import java.time.Instant;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import dev.membership.spi.AbstractMembershipStoreContractTests;
import dev.membership.spi.MembershipStore;

/** The simulator's store keeps the same contract as the MongoDB stores, so what the simulator proves carries over. */
class SimulatedStoreContractTests extends AbstractMembershipStoreContractTests {

	/** Clients of one namespace share its data, as clients of one database do. */
	private final Map<String, SimulatedStore> databases = new ConcurrentHashMap<>();

	@Override
	protected MembershipStore createStore(String namespace) {
		return this.databases.computeIfAbsent(namespace,
				(name) -> new SimulatedStore(Instant::now, SimulatedStore.Defect.NONE));
	}

}
