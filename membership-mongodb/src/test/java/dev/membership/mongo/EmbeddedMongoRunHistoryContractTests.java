package dev.membership.mongo;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

import com.mongodb.client.MongoClient;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.extension.RegisterExtension;

import dev.membership.spi.RunHistoryStore;
import dev.membership.test.RunHistoryContract;
import dev.membership.testsupport.EmbeddedMongo;

/** The run history on MongoDB's blocking driver. */
class EmbeddedMongoRunHistoryContractTests extends RunHistoryContract {

	@RegisterExtension
	static final EmbeddedMongo mongo = new EmbeddedMongo();

	private static final List<MongoClient> clients = new ArrayList<>();

	private static final AtomicInteger collections = new AtomicInteger();

	@AfterAll
	static void closeClients() {
		clients.forEach(MongoClient::close);
	}

	@Override
	protected RunHistoryStore createHistory() {
		MongoClient client = mongo.newClient();
		clients.add(client);
		return new MongoRunHistory(client.getDatabase("membership"), "runs" + collections.incrementAndGet(),
				Duration.ofDays(7), MAX_RUNS, Duration.ofSeconds(2));
	}

}
