package dev.membership.mongo;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import org.bson.BsonDocument;
import org.bson.Document;
import org.bson.codecs.configuration.CodecRegistries;
import org.bson.conversions.Bson;
import org.junit.jupiter.api.Test;

import com.mongodb.MongoClientSettings;

import dev.membership.liveness.Member;
import dev.membership.spi.RosterChange;
import dev.membership.spi.RosterTooLargeException;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * The roster stays one document under MongoDB's 16 MiB limit, whatever the member count:
 * kept changes are left out first, oldest first, and a member list that cannot fit alone
 * is refused with a message that says so. Sizes are the BSON the update really sends,
 * measured by encoding it.
 */
class RosterSizeTests {

	private static final Instant NOW = Instant.parse("2026-11-23T12:00:00Z");

	/**
	 * A node as Spring Boot names it by default: the application's name and 8 hex digits.
	 */
	private static Member member(int i) {
		return new Member("orders-service-" + String.format("%08x", i), UUID.randomUUID().toString(),
				"10.1." + (i / 250) % 250 + "." + i % 250 + ":8080", NOW, NOW, List.of("default"), true);
	}

	private static List<Member> members(int count) {
		List<Member> members = new ArrayList<>(count);
		for (int i = 0; i < count; i++) {
			members.add(member(i));
		}
		return members;
	}

	private static BsonDocument set(Bson update) {
		return update
			.toBsonDocument(BsonDocument.class,
					CodecRegistries.fromRegistries(MongoClientSettings.getDefaultCodecRegistry()))
			.getDocument("$set");
	}

	/** What the budget counts: the members and the placement (none here). */
	private static long bytes(List<Member> members) {
		return RosterDocuments.bsonSize(new Document("members",
				set(RosterDocuments.rosterUpdate(members, List.of(), Map.of(), "k", 1, 1)).getArray("members"))
			.append("assignments", List.of()));
	}

	@Test
	void oldKeptChangesAreLeftOutFirstWhenTheDocumentWouldPassTheBudget() {
		List<Member> roster = members(100);
		RosterChange older = new RosterChange(7, members(60), List.of());
		RosterChange newer = new RosterChange(8, members(30), List.of());
		long budget = bytes(roster) + bytes(members(45));

		BsonDocument kept = set(RosterDocuments.rosterUpdate(roster, List.of(older, newer), "k", 1, 1, budget));
		assertThat(kept.getArray("members")).hasSize(100);
		assertThat(kept.getArray("changes")).singleElement()
			.satisfies((change) -> assertThat(change.asDocument().getInt64("from").getValue()).isEqualTo(8));

		BsonDocument both = set(
				RosterDocuments.rosterUpdate(roster, List.of(older, newer), "k", 1, 1, budget + bytes(members(60))));
		assertThat(both.getArray("changes")).hasSize(2);

		BsonDocument none = set(
				RosterDocuments.rosterUpdate(roster, List.of(older, newer), "k", 1, 1, bytes(roster) + 10));
		assertThat(none.getArray("members")).hasSize(100);
		assertThat(none.getArray("changes")).isEmpty();
	}

	@Test
	void aMemberListTooLargeForTheBudgetIsRefusedSayingWhatItCannotHold() {
		List<Member> roster = members(100);
		assertThatExceptionOfType(RosterTooLargeException.class)
			.isThrownBy(() -> RosterDocuments.rosterUpdate(roster, List.of(), Map.of(), "k", 1, 1, bytes(roster) - 1))
			.withMessageStartingWith("A roster of 100 members takes " + bytes(roster) + " bytes, more than the "
					+ (bytes(roster) - 1) + " bytes one roster document may take");
	}

	/**
	 * The figure the docs give: how many members one document holds, at the real encoded
	 * size per member.
	 */
	@Test
	void oneDocumentHoldsAboutSeventyNineThousandMembersWithBootDefaultNodeIds() {
		int sample = 10_000;
		double perMember = (double) bytes(members(sample)) / sample;
		long capacity = (long) (RosterDocuments.ROSTER_BUDGET_BYTES / perMember);
		System.out.printf("roster: %.1f bytes per member; %,d members in %,d bytes%n", perMember, capacity,
				RosterDocuments.ROSTER_BUDGET_BYTES);
		assertThat(perMember).isBetween(150.0, 250.0);
		assertThat(capacity).isBetween(70_000L, 90_000L);
		assertThatExceptionOfType(RosterTooLargeException.class).isThrownBy(
				() -> RosterDocuments.rosterUpdate(members((int) (capacity * 1.02)), List.of(), Map.of(), "k", 1, 1));
	}

}
