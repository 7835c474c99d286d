package dev.membership.mongo;

import java.time.Instant;
import java.util.Arrays;
import java.util.List;

import org.bson.Document;
import org.junit.jupiter.api.Test;

import dev.membership.spi.PlacementChange;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A roster change's placement changes as documents, and what a member does with ones not
 * as this code writes them.
 */
class PlacementChangeDocumentsTests {

	@Test
	void theyRoundTripWithPinsOnlyWhenOneIsSet() {
		PlacementChange pinned = new PlacementChange("tenants", 8, List.of(2, 5), List.of("c", "c"),
				Arrays.asList(null, "c"), Instant.ofEpochMilli(1_700_000_000_123L));
		PlacementChange moved = new PlacementChange("jobs", 4, List.of(1), List.of("b"), Arrays.asList((String) null),
				null);
		List<Document> documents = Placements.changesToDocuments(List.of(pinned, moved, PlacementChange.removed("x")));
		assertThat(documents.get(0)).containsKey("p");
		assertThat(documents.get(1)).doesNotContainKey("p").doesNotContainKey("u");
		assertThat(Placements.toChanges(documents)).containsExactly(pinned, moved, PlacementChange.removed("x"));
		assertThat(Placements.toChanges(null)).as("not recorded").isNull();
		assertThat(Placements.toChanges(List.of())).as("nothing moved").isEmpty();
	}

	@Test
	void partitionNumbersStoredAsAnyNumberAreReadAndAChangeThatDoesNotFitMakesTheMemberReadTheWholeRoster() {
		Document longs = new Document("g", "t").append("n", 4L)
			.append("i", List.of(1L, 3.0))
			.append("o", List.of("a", "b"));
		assertThat(Placements.toChanges(List.of(longs))).containsExactly(
				new PlacementChange("t", 4, List.of(1, 3), List.of("a", "b"), Arrays.asList(null, null), null));
		Document negative = new Document("g", "t").append("n", -1).append("i", List.of()).append("o", List.of());
		assertThat(Placements.toChanges(List.of(negative))).isNull();
		Document text = new Document("g", "t").append("n", 4).append("i", List.of("1")).append("o", List.of("a"));
		assertThat(Placements.toChanges(List.of(text))).isNull();
		Document uneven = new Document("g", "t").append("n", 4).append("i", List.of(1, 2)).append("o", List.of("a"));
		assertThat(Placements.toChanges(List.of(uneven))).isNull();
		Document ownerNotText = new Document("g", "t").append("n", 4).append("i", List.of(1)).append("o", List.of(7));
		assertThat(Placements.toChanges(List.of(ownerNotText))).isNull();
	}

}
