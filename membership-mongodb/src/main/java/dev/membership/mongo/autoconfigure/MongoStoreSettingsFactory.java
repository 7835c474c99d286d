package dev.membership.mongo.autoconfigure;

import java.time.Duration;
import java.util.List;

import com.mongodb.WriteConcern;
import com.mongodb.client.MongoDatabase;

import dev.membership.InvalidMembershipSettingsException;
import dev.membership.InvalidMembershipSettingsException.Violation;
import dev.membership.autoconfigure.HistoryProperties;
import dev.membership.autoconfigure.MembershipProperties;
import dev.membership.autoconfigure.StoreOperationTimeout;
import dev.membership.mongo.MongoRunHistory;
import dev.membership.mongo.MongoStoreSettings;
import dev.membership.spi.MembershipSettings;

/**
 * The MongoDB store's own settings, from {@code membership.mongo.*}; used only where
 * MongoDB is on the classpath.
 */
final class MongoStoreSettingsFactory {

	private MongoStoreSettingsFactory() {
	}

	static MongoStoreSettings storeSettings(MembershipMongoProperties mongo, MembershipSettings settings) {
		WriteConcern writeConcern = leaseWriteConcern(mongo.getLeaseWriteConcern());
		Duration timeout = StoreOperationTimeout.of("mongo", mongo.getOperationTimeout(), settings);
		return new MongoStoreSettings(mongo.getNodesCollection(), mongo.getLeasesCollection(), timeout, writeConcern,
				settings.deadNodeRetention(), mongo.getTermsCollection());
	}

	static MongoRunHistory runHistory(MongoDatabase database, MembershipProperties properties,
			MembershipMongoProperties mongo, MembershipSettings settings) {
		HistoryProperties history = properties.getHistory();
		return new MongoRunHistory(database, mongo.getRunsCollection(), history.getRetention(), history.getMaxRuns(),
				storeSettings(mongo, settings).operationTimeout());
	}

	/**
	 * {@code majority}, or {@code majority-journaled}; anything weaker is refused: a
	 * lease write acknowledged by fewer than a majority can be rolled back by a failover,
	 * and then two nodes lead under one epoch.
	 */
	static WriteConcern leaseWriteConcern(String name) {
		String value = String.valueOf(name).trim();
		if (value.equalsIgnoreCase("majority")) {
			return WriteConcern.MAJORITY;
		}
		if (value.equalsIgnoreCase("majority-journaled")) {
			return WriteConcern.MAJORITY.withJournal(true);
		}
		WriteConcern known = WriteConcern.valueOf(value);
		String what = (known != null) ? "'" + value + "' is weaker than majority"
				: "'" + value + "' is not a write concern";
		throw new InvalidMembershipSettingsException(List.of(new Violation(List.of("mongo.lease-write-concern"), what
				+ ": a lease write acknowledged by fewer than a majority of the replica set can be rolled back by a "
				+ "failover, and then two nodes lead with the same epoch; use majority (the default) or "
				+ "majority-journaled")));
	}

}
