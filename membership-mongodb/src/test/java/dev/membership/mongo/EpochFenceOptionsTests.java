package dev.membership.mongo;

import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.Arrays;
import java.util.List;

import com.mongodb.client.model.Collation;
import com.mongodb.client.model.Filters;
import com.mongodb.client.model.Sorts;
import com.mongodb.client.model.UpdateOptions;
import org.bson.BsonString;
import org.bson.Document;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A fenced upsert that collides is tried again as a plain update with the caller's
 * options: every one of them but the upsert, also options the driver adds later (each
 * getter of {@link UpdateOptions} is compared).
 */
class EpochFenceOptionsTests {

	@Test
	void theRetryWithoutUpsertKeepsEveryOptionOfTheCaller() throws Exception {
		UpdateOptions options = new UpdateOptions().upsert(true)
			.bypassDocumentValidation(true)
			.collation(Collation.builder().locale("fr").build())
			.arrayFilters(List.of(Filters.eq("x.a", 1)))
			.hint(new Document("k", 1))
			.hintString("k_1")
			.comment(new BsonString("nightly report"))
			.let(new Document("cutoff", 3))
			.sort(Sorts.descending("at"));
		UpdateOptions retry = FenceWrites.withoutUpsert(options);
		assertThat(retry.isUpsert()).isFalse();
		List<Method> getters = Arrays.stream(UpdateOptions.class.getMethods())
			.filter((m) -> Modifier.isPublic(m.getModifiers()) && m.getParameterCount() == 0)
			.filter((m) -> m.getDeclaringClass() == UpdateOptions.class)
			.filter((m) -> m.getName().startsWith("get")
					|| (m.getName().startsWith("is") && !m.getName().equals("isUpsert")))
			.toList();
		assertThat(getters).hasSizeGreaterThanOrEqualTo(8);
		for (Method getter : getters) {
			assertThat(getter.invoke(options)).as(getter.getName()).isNotNull();
			assertThat(getter.invoke(retry)).as(getter.getName()).isEqualTo(getter.invoke(options));
		}
	}

}
