package dev.membership.mongo;

import java.time.Duration;
import java.util.Objects;

import com.mongodb.WriteConcern;

/**
 * @param nodesCollection collection of node documents
 * @param leasesCollection collection of lease documents (never give it a TTL: epochs must
 * survive)
 * @param operationTimeout client-side timeout of every call; must be shorter than the
 * lease
 * @param leaseWriteConcern write concern of lease writes: majority, journaled or with the
 * server's default ({@code j} unset); weaker ones, and {@code j: false}, are refused,
 * since a failover or a restart of a majority can lose a lease they acknowledged
 * @param deadNodeRetention how long a dead node's document stays (TTL index on real
 * MongoDB)
 * @param termsCollection collection of term documents, one per lease, written as each
 * term begins: what a transaction fence ({@link EpochFence#joinTransaction}) holds (never
 * give it a TTL)
 */
public record MongoStoreSettings(String nodesCollection, String leasesCollection, Duration operationTimeout,
		WriteConcern leaseWriteConcern, Duration deadNodeRetention, String termsCollection) {

	/** The terms collection's name unless set: {@value}. */
	public static final String DEFAULT_TERMS_COLLECTION = "clusterterms";

	public MongoStoreSettings {
		Objects.requireNonNull(nodesCollection, "nodesCollection");
		Objects.requireNonNull(leasesCollection, "leasesCollection");
		Objects.requireNonNull(termsCollection, "termsCollection");
		Objects.requireNonNull(operationTimeout, "operationTimeout");
		Objects.requireNonNull(leaseWriteConcern, "leaseWriteConcern");
		Objects.requireNonNull(deadNodeRetention, "deadNodeRetention");
		if (!"majority".equals(leaseWriteConcern.getWObject())) {
			throw new IllegalArgumentException("Lease writes need a majority write concern, not " + leaseWriteConcern
					+ ": a failover can roll back a lease acknowledged by fewer, and then two nodes lead with one epoch");
		}
		if (Boolean.FALSE.equals(leaseWriteConcern.getJournal())) {
			throw new IllegalArgumentException("Lease writes cannot turn the journal off (" + leaseWriteConcern
					+ "): a majority acknowledged from memory is lost when a majority of the members restart at once, "
					+ "and then two nodes lead with one epoch; leave j unset or true");
		}
	}

	/** The settings with the terms in {@value #DEFAULT_TERMS_COLLECTION}. */
	public MongoStoreSettings(String nodesCollection, String leasesCollection, Duration operationTimeout,
			WriteConcern leaseWriteConcern, Duration deadNodeRetention) {
		this(nodesCollection, leasesCollection, operationTimeout, leaseWriteConcern, deadNodeRetention,
				DEFAULT_TERMS_COLLECTION);
	}

	public static MongoStoreSettings defaults() {
		return new MongoStoreSettings("clusternodes", "clusterleases", Duration.ofSeconds(5), WriteConcern.MAJORITY,
				Duration.ofMinutes(10));
	}

	public MongoStoreSettings withOperationTimeout(Duration timeout) {
		return new MongoStoreSettings(this.nodesCollection, this.leasesCollection, timeout, this.leaseWriteConcern,
				this.deadNodeRetention, this.termsCollection);
	}

	public MongoStoreSettings withCollections(String nodes, String leases) {
		return new MongoStoreSettings(nodes, leases, this.operationTimeout, this.leaseWriteConcern,
				this.deadNodeRetention, this.termsCollection);
	}

	public MongoStoreSettings withTermsCollection(String terms) {
		return new MongoStoreSettings(this.nodesCollection, this.leasesCollection, this.operationTimeout,
				this.leaseWriteConcern, this.deadNodeRetention, terms);
	}

}
