package dev.membership.broadcast;

import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.UUID;

import org.junit.jupiter.api.Test;
import tools.jackson.databind.json.JsonMapper;

import static org.assertj.core.api.Assertions.assertThat;

class BroadcastReceiverTests {

	private static final String NEW_KEY = "n".repeat(32);

	private static final String OLD_KEY = "o".repeat(40);

	private final JsonMapper mapper = new JsonMapper();

	private final Instant now = Instant.parse("2026-11-21T12:00:00Z");

	private final List<ClusterBroadcastEvent> delivered = new ArrayList<>();

	private BroadcastReceiver receiver(String... keys) {
		BroadcastKeyring keyring = BroadcastKeyring.ofStrings(List.of(keys));
		return new BroadcastReceiver(
				"receiver", () -> keyring, this.mapper, new BroadcastSettings("/b", Duration.ofMillis(100),
						Duration.ofMillis(100), Duration.ofMinutes(1), 1024, false),
				() -> Optional.of(this.now), this.delivered::add, BroadcastMetrics.none());
	}

	private byte[] body(UUID id, Instant sentAt) {
		return ("{\"id\":\"" + id + "\",\"sender\":\"a\",\"topic\":\"cache\",\"sentAt\":" + sentAt.toEpochMilli()
				+ ",\"payload\":{\"key\":\"k1\"}}")
			.getBytes(StandardCharsets.UTF_8);
	}

	private BroadcastReceiver.Response send(BroadcastReceiver receiver, String contentType, byte[] body, String keyId,
			String signature) {
		return receiver.receive(contentType, body.length, new ByteArrayInputStream(body), keyId, signature);
	}

	private BroadcastReceiver.Response signedWith(BroadcastReceiver receiver, String key, byte[] body) {
		BroadcastKeyring signer = BroadcastKeyring.ofStrings(List.of(key));
		return send(receiver, "application/json", body, signer.primaryKeyId(), signer.sign("receiver", body));
	}

	@Test
	void acceptsASignedFreshMessageOnceAndDropsItsDuplicates() {
		BroadcastReceiver receiver = receiver(NEW_KEY);
		byte[] body = body(UUID.randomUUID(), this.now.minusSeconds(5));
		assertThat(signedWith(receiver, NEW_KEY, body))
			.isEqualTo(new BroadcastReceiver.Response(200, "{\"status\":\"accepted\"}", null, null));
		assertThat(signedWith(receiver, NEW_KEY, body).body()).contains("duplicate");
		assertThat(this.delivered).singleElement().satisfies((event) -> {
			assertThat(event.topic()).isEqualTo("cache");
			assertThat(event.senderNodeId()).isEqualTo("a");
			assertThat(event.payloadJson()).isEqualTo("{\"key\":\"k1\"}");
			assertThat(event.payload(java.util.Map.class)).containsEntry("key", "k1");
		});
	}

	/**
	 * An operator's command carried here is never delivered as an event: it is answered,
	 * signed for its sender alone; a receiver that carries out no commands answers 404.
	 */
	@Test
	void aCarriedCommandIsAnsweredSignedForItsSenderAndNeverDelivered() {
		BroadcastKeyring keyring = BroadcastKeyring.ofStrings(List.of(NEW_KEY));
		byte[] command = ("{\"id\":\"" + UUID.randomUUID() + "\",\"sender\":\"a\",\"topic\":\"" + OperatorRelay.TOPIC
				+ "\",\"sentAt\":" + this.now.toEpochMilli() + ",\"payload\":{\"nonce\":\"x\"}}")
			.getBytes(StandardCharsets.UTF_8);
		assertThat(signedWith(receiver(NEW_KEY), NEW_KEY, command).status()).isEqualTo(404);
		BroadcastReceiver answering = new BroadcastReceiver("receiver", () -> keyring, this.mapper,
				new BroadcastSettings("/b", Duration.ofMillis(100), Duration.ofMillis(100), Duration.ofMinutes(1), 1024,
						false),
				() -> Optional.of(this.now), this.delivered::add, BroadcastMetrics.none(),
				(event) -> ("{\"nonce\":\"" + event.payloadTree().get("nonce").asString() + "\"}")
					.getBytes(StandardCharsets.UTF_8));
		BroadcastReceiver.Response answer = signedWith(answering, NEW_KEY, command);
		assertThat(answer.status()).isEqualTo(200);
		assertThat(answer.body()).isEqualTo("{\"nonce\":\"x\"}");
		byte[] answered = answer.body().getBytes(StandardCharsets.UTF_8);
		assertThat(keyring.verify(answer.keyId(), "a", answered, answer.signature())).isTrue();
		assertThat(keyring.verify(answer.keyId(), "receiver", answered, answer.signature())).isFalse();
		assertThat(this.delivered).isEmpty();
	}

	@Test
	void aMessageSignedForAnotherNodeIsRefusedAndTheSameBodySignedForThisOneAccepted() {
		BroadcastReceiver receiver = receiver(NEW_KEY);
		BroadcastKeyring keyring = BroadcastKeyring.ofStrings(List.of(NEW_KEY));
		byte[] body = body(UUID.randomUUID(), this.now);
		assertThat(send(receiver, "application/json", body, keyring.primaryKeyId(), keyring.sign("elsewhere", body))
			.status()).as("captured on its way to another node, replayed here").isEqualTo(401);
		assertThat(send(receiver, "application/json", body, keyring.primaryKeyId(), keyring.sign("receiver", body))
			.status()).isEqualTo(200);
		assertThat(keyring.sign("a", "bc".getBytes(StandardCharsets.UTF_8)))
			.as("the recipient and the body cannot be shifted into each other")
			.isNotEqualTo(keyring.sign("ab", "c".getBytes(StandardCharsets.UTF_8)));
		assertThat(this.delivered).hasSize(1);
	}

	@Test
	void rejectsEveryBadMessageWithTheRightStatusAndPublishesNothing() {
		BroadcastReceiver receiver = receiver(NEW_KEY);
		byte[] body = body(UUID.randomUUID(), this.now);
		BroadcastKeyring keyring = BroadcastKeyring.ofStrings(List.of(NEW_KEY));
		assertThat(send(receiver, "application/json", body, null, null).status()).as("unsigned").isEqualTo(401);
		assertThat(send(receiver, "application/json", body, keyring.primaryKeyId(),
				keyring.sign("receiver", "other".getBytes()))
			.status()).as("wrong signature").isEqualTo(401);
		assertThat(
				send(receiver, "application/json", body, "0123456789abcdef", keyring.sign("receiver", body)).status())
			.as("unknown key")
			.isEqualTo(401);
		assertThat(send(receiver, "application/json", body, keyring.primaryKeyId(), "%%%").status()).as("not base64")
			.isEqualTo(401);
		assertThat(signedWith(receiver, "x".repeat(32), body).status()).as("signed with another key").isEqualTo(401);
		assertThat(signedWith(receiver, NEW_KEY, body(UUID.randomUUID(), this.now.minusSeconds(31))).status())
			.as("replayed after the window")
			.isEqualTo(401);
		assertThat(signedWith(receiver, NEW_KEY, body(UUID.randomUUID(), this.now.plusSeconds(31))).status())
			.as("from the future")
			.isEqualTo(401);
		assertThat(signedWith(receiver, NEW_KEY, "{not json".getBytes()).status()).as("malformed").isEqualTo(400);
		assertThat(signedWith(receiver, NEW_KEY, "{\"id\":\"x\"}".getBytes()).status()).as("missing fields")
			.isEqualTo(400);
		assertThat(signedWith(receiver, NEW_KEY, "[1,2]".getBytes()).status()).as("not an object").isEqualTo(400);
		assertThat(send(receiver, "text/plain", body, keyring.primaryKeyId(), keyring.sign("receiver", body)).status())
			.as("wrong content type")
			.isEqualTo(400);
		assertThat(send(receiver, null, body, keyring.primaryKeyId(), keyring.sign("receiver", body)).status())
			.as("no content type")
			.isEqualTo(400);
		byte[] big = new byte[2048];
		assertThat(
				send(receiver, "application/json", big, keyring.primaryKeyId(), keyring.sign("receiver", big)).status())
			.as("oversized")
			.isEqualTo(413);
		assertThat(receiver
			.receive("application/json", -1, new ByteArrayInputStream(big), keyring.primaryKeyId(),
					keyring.sign("receiver", big))
			.status()).as("oversized, no length given").isEqualTo(413);
		assertThat(this.delivered).isEmpty();
	}

	@Test
	void answersNeverEchoThePayloadOrAKey() {
		BroadcastReceiver receiver = receiver(NEW_KEY);
		for (BroadcastReceiver.Response response : List.of(
				signedWith(receiver, NEW_KEY, body(UUID.randomUUID(), this.now)),
				signedWith(receiver, "y".repeat(32), body(UUID.randomUUID(), this.now)),
				signedWith(receiver, NEW_KEY, "{bad k1".getBytes()))) {
			assertThat(response.body()).doesNotContain("k1")
				.doesNotContain(NEW_KEY)
				.matches("\\{\"status\":\"[a-z ]+\"}");
		}
	}

	@Test
	void anOldKeyVerifiesWhileConfiguredAndFailsOnceRemoved() {
		byte[] body = body(UUID.randomUUID(), this.now);
		assertThat(signedWith(receiver(NEW_KEY, OLD_KEY), OLD_KEY, body).status()).isEqualTo(200);
		assertThat(signedWith(receiver(NEW_KEY), OLD_KEY, body(UUID.randomUUID(), this.now)).status()).isEqualTo(401);
		// the primary (first) key signs
		BroadcastKeyring rotated = BroadcastKeyring.ofStrings(List.of(NEW_KEY, OLD_KEY));
		assertThat(rotated.primaryKeyId()).isEqualTo(BroadcastKeyring.ofStrings(List.of(NEW_KEY)).primaryKeyId());
	}

	@Test
	void refusesWhileItCannotTellTheTime() {
		BroadcastKeyring keyring = BroadcastKeyring.ofStrings(List.of(NEW_KEY));
		BroadcastReceiver receiver = new BroadcastReceiver("receiver", () -> keyring, this.mapper,
				BroadcastSettings.defaults(), Optional::empty, this.delivered::add, BroadcastMetrics.none());
		byte[] body = body(UUID.randomUUID(), this.now);
		assertThat(send(receiver, "application/json", body, keyring.primaryKeyId(), keyring.sign("receiver", body))
			.status()).isEqualTo(503);
		assertThat(this.delivered).isEmpty();
	}

}
