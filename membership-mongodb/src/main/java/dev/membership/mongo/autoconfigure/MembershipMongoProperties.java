package dev.membership.mongo.autoconfigure;

import java.time.Duration;
import java.time.temporal.ChronoUnit;

import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.convert.DurationUnit;

/**
 * The MongoDB store's own settings, {@code membership.mongo.*}; the starter's
 * ({@code membership.*}) stay in {@code MembershipProperties}.
 */
@ConfigurationProperties("membership.mongo")
public class MembershipMongoProperties {

	/**
	 * Collection of node documents.
	 */
	private String nodesCollection = "clusternodes";

	/**
	 * Collection of lease documents, one per group. Never give it a TTL index: epochs
	 * must survive.
	 */
	private String leasesCollection = "clusterleases";

	/**
	 * Collection of term documents, one per lease, written as each term begins: what a
	 * transaction fence holds. Never give it a TTL index.
	 */
	private String termsCollection = "clusterterms";

	/**
	 * Client-side timeout of every membership call to MongoDB (server selection
	 * included). Shorter than the lease duration. Defaults to the renewal interval.
	 */
	@DurationUnit(ChronoUnit.SECONDS)
	private Duration operationTimeout;

	/**
	 * Write concern of lease writes: "majority", or "majority-journaled" (also waits for
	 * the journal where the replica set's writeConcernMajorityJournalDefault is false).
	 * Anything weaker is refused at startup.
	 */
	private String leaseWriteConcern = "majority";

	/**
	 * Collection holding the generated broadcast key (when membership.broadcast.keys is
	 * empty).
	 */
	private String keysCollection = "clusterkeys";

	/**
	 * Collection of the run history (membership.history): one document per run, bounded
	 * by count and age.
	 */
	private String runsCollection = "clusterruns";

	public String getRunsCollection() {
		return this.runsCollection;
	}

	public void setRunsCollection(String runsCollection) {
		this.runsCollection = runsCollection;
	}

	public String getKeysCollection() {
		return this.keysCollection;
	}

	public void setKeysCollection(String keysCollection) {
		this.keysCollection = keysCollection;
	}

	public String getNodesCollection() {
		return this.nodesCollection;
	}

	public void setNodesCollection(String nodesCollection) {
		this.nodesCollection = nodesCollection;
	}

	public String getLeasesCollection() {
		return this.leasesCollection;
	}

	public void setLeasesCollection(String leasesCollection) {
		this.leasesCollection = leasesCollection;
	}

	public String getTermsCollection() {
		return this.termsCollection;
	}

	public void setTermsCollection(String termsCollection) {
		this.termsCollection = termsCollection;
	}

	public Duration getOperationTimeout() {
		return this.operationTimeout;
	}

	public void setOperationTimeout(Duration operationTimeout) {
		this.operationTimeout = operationTimeout;
	}

	public String getLeaseWriteConcern() {
		return this.leaseWriteConcern;
	}

	public void setLeaseWriteConcern(String leaseWriteConcern) {
		this.leaseWriteConcern = leaseWriteConcern;
	}

}
