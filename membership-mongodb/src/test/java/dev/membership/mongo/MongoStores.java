package dev.membership.mongo;

import java.time.Duration;

import com.mongodb.client.MongoDatabase;

import dev.membership.spi.MembershipStore;

/** Stores for tests: collections named after a namespace so tests never share state. */
public final class MongoStores {

	private MongoStores() {
	}

	public static MembershipStore create(MongoDatabase database, String namespace) {
		return new MongoMembershipStore(database,
				MongoStoreSettings.defaults()
					.withCollections(namespace + "_nodes", namespace + "_leases")
					.withTermsCollection(namespace + "_terms")
					.withOperationTimeout(Duration.ofSeconds(2)));
	}

	public static MembershipStore create(MongoDatabase database, String namespace, Duration operationTimeout) {
		return new MongoMembershipStore(database,
				MongoStoreSettings.defaults()
					.withCollections(namespace + "_nodes", namespace + "_leases")
					.withTermsCollection(namespace + "_terms")
					.withOperationTimeout(operationTimeout));
	}

}
