package dev.membership.mongo;

import java.util.List;

import com.mongodb.MongoNamespace;
import org.bson.Document;
import org.junit.jupiter.api.Test;

import dev.membership.spi.StoreException;

import static org.assertj.core.api.Assertions.assertThatIllegalStateException;
import static org.assertj.core.api.Assertions.assertThatNoException;

/**
 * Membership collections spread over several shards are refused with the fix: each
 * shard's primary stamps with its own clock. A mongos answers {@code $collStats} with a
 * document per shard that holds data; a replica set with one without a shard; a server
 * that cannot answer leaves the check to the nodes.
 */
class UnshardedTests {

	private static final List<MongoNamespace> COLLECTIONS = List.of(new MongoNamespace("app.clusternodes"),
			new MongoNamespace("app.clusterleases"));

	@Test
	void dataOnTwoShardsIsRefusedNamingTheCollectionAndTheFix() {
		assertThatIllegalStateException()
			.isThrownBy(() -> Unsharded.check(COLLECTIONS,
					(ns) -> ns.getCollectionName().equals("clusterleases")
							? List.of(new Document("shard", "rs-a"), new Document("shard", "rs-b"))
							: List.of(new Document("shard", "rs-a"))))
			.withMessageContaining("app.clusterleases (on [rs-a, rs-b])")
			.withMessageContaining("Unshard them")
			.withMessageNotContaining("clusternodes (on");
	}

	@Test
	void aReplicaSetAnUnshardedCollectionBehindAMongosOrNoAnswerPass() {
		assertThatNoException()
			.isThrownBy(() -> Unsharded.check(COLLECTIONS, (ns) -> List.of(new Document("ns", "x"))));
		assertThatNoException()
			.isThrownBy(() -> Unsharded.check(COLLECTIONS, (ns) -> List.of(new Document("shard", "rs-a"))));
		assertThatNoException().isThrownBy(() -> Unsharded.check(COLLECTIONS, (ns) -> {
			throw new StoreException("Unrecognized pipeline stage name: '$collStats'", null);
		}));
	}

}
