package dev.membership.autoconfigure;

import java.time.Duration;
import java.util.List;

import com.mongodb.WriteConcern;

import dev.membership.InvalidMembershipSettingsException;
import dev.membership.InvalidMembershipSettingsException.Violation;
import dev.membership.MembershipSettings;
import dev.membership.store.mongo.MongoStoreSettings;

/** The MongoDB store's own settings, from {@code membership.mongo.*}; used only where MongoDB is on the classpath. */
final class MongoStoreSettingsFactory {

	private MongoStoreSettingsFactory() {
	}

	static MongoStoreSettings storeSettings(MembershipProperties properties, MembershipSettings settings) {
		MembershipProperties.Mongo mongo = properties.getMongo();
		WriteConcern writeConcern = WriteConcern.valueOf(mongo.getLeaseWriteConcern());
		if (writeConcern == null) {
			throw new InvalidMembershipSettingsException(List.of(new Violation(List.of("mongo.lease-write-concern"),
					"unknown write concern '" + mongo.getLeaseWriteConcern() + "' (use majority, w1, w2, ...)")));
		}
		Duration timeout = (mongo.getOperationTimeout() != null) ? mongo.getOperationTimeout()
				: settings.renewalInterval();
		return new MongoStoreSettings(mongo.getNodesCollection(), mongo.getLeasesCollection(), timeout, writeConcern,
				settings.deadNodeRetention());
	}

}
