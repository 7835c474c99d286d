package dev.membership.mongo;

import java.time.Duration;
import java.util.Objects;

import com.mongodb.WriteConcern;

/**
 * @param nodesCollection collection of node documents
 * @param leasesCollection collection of lease documents (never give it a TTL: epochs must survive)
 * @param operationTimeout client-side timeout of every call; must be shorter than the lease
 * @param leaseWriteConcern write concern of lease writes: majority (with or without the journal); weaker ones are
 * refused, since a failover can roll back a lease they acknowledged
 * @param deadNodeRetention how long a dead node's document stays (TTL index on real MongoDB)
 */
public record MongoStoreSettings(String nodesCollection, String leasesCollection, Duration operationTimeout,
		WriteConcern leaseWriteConcern, Duration deadNodeRetention) {

	public MongoStoreSettings {
		Objects.requireNonNull(nodesCollection, "nodesCollection");
		Objects.requireNonNull(leasesCollection, "leasesCollection");
		Objects.requireNonNull(operationTimeout, "operationTimeout");
		Objects.requireNonNull(leaseWriteConcern, "leaseWriteConcern");
		Objects.requireNonNull(deadNodeRetention, "deadNodeRetention");
		if (!"majority".equals(leaseWriteConcern.getWObject())) {
			throw new IllegalArgumentException("Lease writes need a majority write concern, not " + leaseWriteConcern
					+ ": a failover can roll back a lease acknowledged by fewer, and then two nodes lead with one epoch");
		}
	}

	public static MongoStoreSettings defaults() {
		return new MongoStoreSettings("clusternodes", "clusterleases", Duration.ofSeconds(5), WriteConcern.MAJORITY,
				Duration.ofMinutes(10));
	}

	public MongoStoreSettings withOperationTimeout(Duration timeout) {
		return new MongoStoreSettings(this.nodesCollection, this.leasesCollection, timeout, this.leaseWriteConcern,
				this.deadNodeRetention);
	}

	public MongoStoreSettings withCollections(String nodes, String leases) {
		return new MongoStoreSettings(nodes, leases, this.operationTimeout, this.leaseWriteConcern,
				this.deadNodeRetention);
	}

}
