package dev.membership.mongo;

import java.util.concurrent.TimeUnit;

import com.mongodb.ReadPreference;
import com.mongodb.client.MongoDatabase;

/**
 * Nodes and leases in two MongoDB collections; the roster is one more document among the
 * leases ({@code _id} {@code "_roster"}), so that a member reads its groups' leases and a
 * changed roster in one query.
 * <p>
 * Leases: one document per group keyed by {@code _id}. Acquisition is a conditional
 * upsert on {@code {_id: group, $or: [{expiresAt: {$lt: now}}, {holder is me}]}}: when
 * another holder's unexpired lease exists the filter matches nothing, the upsert tries to
 * insert a second document with the same {@code _id}, and the unique {@code _id} index
 * (which MongoDB always has) answers with a duplicate-key error. Safety therefore depends
 * on no index we create. Lease writes use a majority write concern and lease reads
 * majority read concern, so a lease survives a primary failover. Every read goes to the
 * primary, whatever read preference the application's client has: a lagging secondary
 * would show old heartbeats (live nodes taken for dead) and old leases.
 * <p>
 * Every call carries a client-side operation timeout (driver CSOT) shorter than the
 * lease, so a hung server cannot hold the election loop: server selection, connection
 * checkout and the round trip all count against it.
 */
public class MongoMembershipStore extends DocumentsStore {

	public MongoMembershipStore(MongoDatabase database, MongoStoreSettings settings) {
		// every read from the primary, whatever the application's client says
		// (secondaryPreferred is common)
		super(SyncDocuments.database(database.withTimeout(settings.operationTimeout().toMillis(), TimeUnit.MILLISECONDS)
			.withReadPreference(ReadPreference.primary())), settings);
	}

}
