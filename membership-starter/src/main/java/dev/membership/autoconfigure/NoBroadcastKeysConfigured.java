package dev.membership.autoconfigure;

import org.springframework.boot.autoconfigure.condition.ConditionOutcome;
import org.springframework.boot.autoconfigure.condition.SpringBootCondition;
import org.springframework.boot.context.properties.bind.Bindable;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.context.annotation.ConditionContext;
import org.springframework.core.type.AnnotatedTypeMetadata;

/**
 * Matches when {@code membership.broadcast.keys} is not set: a store module then
 * generates the keys and keeps them in its database (its {@code BroadcastKeySource} bean,
 * on this condition).
 */
public class NoBroadcastKeysConfigured extends SpringBootCondition {

	@Override
	public ConditionOutcome getMatchOutcome(ConditionContext context, AnnotatedTypeMetadata metadata) {
		boolean configured = Binder.get(context.getEnvironment())
			.bind("membership.broadcast.keys", Bindable.listOf(String.class))
			.map((keys) -> !keys.isEmpty())
			.orElse(false);
		return configured ? ConditionOutcome.noMatch("membership.broadcast.keys is set")
				: ConditionOutcome.match("membership.broadcast.keys is not set");
	}

}
