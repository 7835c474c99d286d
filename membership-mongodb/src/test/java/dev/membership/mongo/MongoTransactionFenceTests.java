package dev.membership.mongo;

import java.time.Duration;
import java.time.Instant;
import java.util.List;

import com.mongodb.client.ClientSession;
import com.mongodb.client.MongoClient;
import com.mongodb.client.MongoCollection;
import com.mongodb.client.MongoDatabase;
import com.mongodb.reactivestreams.client.MongoClients;
import org.bson.Document;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.data.mongodb.core.SimpleMongoClientDatabaseFactory;

import dev.membership.leadership.FencedOutException;
import dev.membership.spi.Holder;
import dev.membership.spi.MembershipStore;
import dev.membership.testsupport.EmbeddedMongo;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

/**
 * What of the MongoDB transaction fence the stand-in can show: it has no transactions
 * (nor does a standalone server), so the wait of a take-over for an open fenced
 * transaction is the MongoDB manual's to keep, not shown here. Shown: every acquisition
 * writes its term's document and renewals never do, the fence's statement holds only its
 * own term, and outside a transaction the fence refuses.
 */
class MongoTransactionFenceTests {

	@RegisterExtension
	static final EmbeddedMongo mongo = new EmbeddedMongo();

	private static final Holder A = new Holder("a", "a-1", null);

	private static final Holder B = new Holder("b", "b-1", null);

	private static final Duration HOUR = Duration.ofHours(1);

	@Test
	void everyAcquisitionWritesItsTermAndRenewalsNever() {
		try (MongoClient client = mongo.newClient();
				com.mongodb.reactivestreams.client.MongoClient reactive = MongoClients.create(mongo.uri())) {
			MongoDatabase database = client.getDatabase("terms");
			MongoStoreSettings settings = MongoStoreSettings.defaults()
				.withCollections("t_nodes", "t_leases")
				.withTermsCollection("t_terms")
				.withOperationTimeout(Duration.ofSeconds(2));
			MongoStoreSettings reactiveSettings = settings.withCollections("r_nodes", "r_leases")
				.withTermsCollection("r_terms");
			assertTermsFollowAcquisitions(new MongoMembershipStore(database, settings),
					database.getCollection("t_terms"));
			assertTermsFollowAcquisitions(
					new ReactiveMongoMembershipStore(reactive.getDatabase("terms"), reactiveSettings),
					database.getCollection("r_terms"));
		}
	}

	private static void assertTermsFollowAcquisitions(MembershipStore store, MongoCollection<Document> terms) {
		Instant now = store.serverTime().orElseThrow();
		store.tryAcquire("reports", A, now, now.plus(HOUR));
		store.tryAcquire("tenants#3", A, now, now.plus(HOUR));
		Document first = terms.find(TermDocuments.of("reports")).first();
		assertThat(first).isNotNull();
		assertThat(first.get("epoch", Number.class).longValue()).isEqualTo(1L);
		store.renew("reports", A, 1, now.plus(HOUR).plusSeconds(5), null);
		store.renewAll(A, java.util.Map.of("reports", 1L), now.plus(HOUR).plusSeconds(9), java.util.Map.of());
		assertThat(terms.find(TermDocuments.of("reports")).first()).isEqualTo(first);
		store.release("reports", A, 1, null);
		store.tryTakeOver("reports", B, A.nodeId(), 1, now, now.plus(HOUR));
		assertThat(terms.find(TermDocuments.of("reports")).first().get("epoch", Number.class).longValue())
			.isEqualTo(2L);
		assertThat(terms.find(TermDocuments.of("tenants#3")).first().get("epoch", Number.class).longValue())
			.isEqualTo(1L);
	}

	@Test
	void theFenceStatementHoldsOnlyItsOwnTerm() {
		try (MongoClient client = mongo.newClient()) {
			MongoCollection<Document> terms = client.getDatabase("terms").getCollection("hold_terms");
			terms.insertOne(new Document("_id", "reports").append("epoch", 2L));
			// run here outside a transaction, which the stand-in lacks: the same
			// statement and check
			TermDocuments.check(TermDocuments.hold(terms, null, "reports", 2), terms, null, "reports", "reports", 2);
			assertThat(terms.find(TermDocuments.of("reports")).first().get("fencedTransactions", Number.class))
				.isNotNull();
			assertThatExceptionOfType(FencedOutException.class)
				.isThrownBy(() -> TermDocuments.check(TermDocuments.hold(terms, null, "reports", 1), terms, null,
						"reports", "reports", 1))
				.satisfies((ex) -> assertThat(ex.newerEpoch()).hasValue(2L));
			assertThatExceptionOfType(FencedOutException.class)
				.isThrownBy(() -> TermDocuments.check(TermDocuments.hold(terms, null, "tenants#3", 1), terms, null,
						"tenants#3", "tenants", 1))
				.withMessageContaining("none written")
				.satisfies((ex) -> assertThat(ex.newerEpoch()).isEmpty());
		}
	}

	@Test
	void outsideATransactionTheFenceRefuses() {
		try (MongoClient client = mongo.newClient(); ClientSession session = client.startSession()) {
			EpochFence fence = EpochFence.of("reports", 2);
			assertThatIllegalStateException()
				.isThrownBy(() -> fence.joinTransaction(session, client.getDatabase("terms")))
				.withMessageContaining("startTransaction()");
			assertThatIllegalStateException()
				.isThrownBy(() -> fence.joinTransaction(new SimpleMongoClientDatabaseFactory(client, "terms")))
				.withMessageContaining("MongoTransactionManager");
			assertThat(client.getDatabase("terms").listCollectionNames().into(new java.util.ArrayList<>()))
				.doesNotContain("clusterterms");
		}
	}

	@Test
	void aPartitionsFenceHoldsItsPartitionsTerm() {
		EpochFence fence = EpochFence.of("tenants", 4).termsCollection("t_terms");
		assertThat(fence).hasToString("EpochFence[group=tenants, epoch=4, field=_fence.tenants, lease=tenants]");
		assertThat(List.of(fence.group(), fence.epoch())).containsExactly("tenants", 4L);
	}

}
