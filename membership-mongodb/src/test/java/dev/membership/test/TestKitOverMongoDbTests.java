package dev.membership.test;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.mongodb.autoconfigure.DataMongoAutoConfiguration;
import org.springframework.boot.mongodb.autoconfigure.MongoAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import dev.membership.autoconfigure.MembershipAutoConfiguration;
import dev.membership.autoconfigure.StoreBroadcastKeys;
import dev.membership.mongo.MongoMembershipStore;
import dev.membership.mongo.MongoRunHistory;
import dev.membership.mongo.autoconfigure.MembershipMongoAutoConfiguration;
import dev.membership.spi.MembershipStore;
import dev.membership.spi.RunHistoryStore;
import dev.membership.testsupport.EmbeddedMongo;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code @AutoConfigureMembershipTest} in an application that has membership-mongodb and
 * a MongoDB: the test kit's simulated store, history and key take the place of the
 * MongoDB ones, which are not made at all (no node of a test writes to the application's
 * database).
 */
class TestKitOverMongoDbTests {

	@RegisterExtension
	static final EmbeddedMongo mongo = new EmbeddedMongo();

	@Test
	void theSimulatedStoreHistoryAndKeyReplaceTheMongoDbOnes() {
		new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(MongoAutoConfiguration.class, DataMongoAutoConfiguration.class,
					MembershipMongoAutoConfiguration.class, MembershipAutoConfiguration.class,
					MembershipTestAutoConfiguration.class))
			.withPropertyValues("spring.mongodb.uri=" + mongo.uri(), "spring.mongodb.database=testkit",
					"membership.advertised-address=127.0.0.1:8080")
			.run((context) -> {
				assertThat(context).hasNotFailed()
					.doesNotHaveBean(MongoMembershipStore.class)
					.doesNotHaveBean(MongoRunHistory.class)
					.doesNotHaveBean(StoreBroadcastKeys.class);
				assertThat(context.getBean(MembershipStore.class))
					.isSameAs(context.getBean(SimulatedCluster.class).store());
				assertThat(context.getBean(RunHistoryStore.class)).isInstanceOf(InMemoryRunHistory.class);
			});
	}

}
