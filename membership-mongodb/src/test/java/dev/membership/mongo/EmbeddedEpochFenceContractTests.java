package dev.membership.mongo;

import com.mongodb.client.MongoClient;
import org.junit.jupiter.api.extension.RegisterExtension;

import dev.membership.testsupport.EmbeddedMongo;

class EmbeddedEpochFenceContractTests extends AbstractEpochFenceContractTests {

	@RegisterExtension
	static final EmbeddedMongo mongo = new EmbeddedMongo();

	@Override
	protected MongoClient newClient() {
		return mongo.newClient();
	}

	@Override
	protected String databaseName() {
		return "fencing";
	}

}
