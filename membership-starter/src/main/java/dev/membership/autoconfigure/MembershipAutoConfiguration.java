package dev.membership.autoconfigure;

import java.util.List;

import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.ApplicationContext;
import org.springframework.context.ApplicationEventPublisher;
import org.springframework.context.SmartLifecycle;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.ImportRuntimeHints;
import org.springframework.core.env.Environment;

import dev.membership.Membership;
import dev.membership.engine.MembershipNode;
import dev.membership.engine.MembershipNodeBuilder;
import dev.membership.event.MembershipEventListener;
import dev.membership.spi.ElectionMetrics;
import dev.membership.spi.LeadershipObserver;
import dev.membership.spi.MembershipSettings;
import dev.membership.spi.MembershipStore;
import dev.membership.spi.NoticeChannel;
import dev.membership.spi.RunHistoryStore;
import dev.membership.spi.RunObserver;

/**
 * Joins the cluster through a {@link MembershipStore} bean: a store module's
 * (membership-mongodb, membership-jdbc, whose auto-configurations run before this one) or
 * the application's own. Every bean backs off when the application defines its own.
 */
@AutoConfiguration
@ConditionalOnBooleanProperty(name = "membership.enabled", matchIfMissing = true)
@EnableConfigurationProperties(MembershipProperties.class)
@ImportRuntimeHints(MembershipRuntimeHints.class)
public final class MembershipAutoConfiguration {

	/**
	 * The {@code SmartLifecycle} phase in which the node joins and leaves: after the web
	 * server starts ({@code DEFAULT_PHASE - 2048}, its port is part of the advertised
	 * address), before its graceful shutdown ({@code DEFAULT_PHASE - 1024}), so that a
	 * graceful stop hands over while the others can still be told.
	 */
	public static final int LIFECYCLE_PHASE = SmartLifecycle.DEFAULT_PHASE - 512;

	@Bean
	@ConditionalOnMissingBean
	MembershipSettings membershipSettings(MembershipProperties properties, Environment environment,
			ListableBeanFactory beans) {
		List<Class<?>> modules = MembershipStores.offers(beans)
			.stream()
			.<Class<?>>map(MembershipStoreOffer::properties)
			.toList();
		return MembershipSettingsFactory.settings(properties, environment, modules);
	}

	@Bean
	@ConditionalOnMissingBean(Membership.class)
	MembershipNode membershipNode(MembershipSettings settings, ObjectProvider<MembershipStore> stores,
			ApplicationEventPublisher publisher, MembershipProperties properties, Environment environment,
			ObjectProvider<LeadershipObserver> observer, ObjectProvider<ElectionMetrics> metrics,
			ObjectProvider<MembershipStoreDecorator> decorators, ObjectProvider<MembershipEventListener> reactions,
			ObjectProvider<NoticeChannel> noticeChannels, ObjectProvider<RunObserver> runObservers,
			ObjectProvider<RunHistoryStore> runHistory, ObjectProvider<MembershipNodeCustomizer> customizers,
			ConfigurableListableBeanFactory beanFactory) {
		// never a silent no-op: without a store the application would start and
		// leader-only work would never run
		MembershipStore store = stores.getIfAvailable(() -> {
			throw new NoMembershipStoreException(MembershipStores.offers(beanFactory), properties.getStore());
		});
		MembershipStore decorated = store;
		for (MembershipStoreDecorator decorator : decorators.orderedStream().toList()) {
			decorated = decorator.decorate(decorated);
		}
		MembershipNodeBuilder builder = MembershipNode.builder(settings, decorated)
			.advertisedAddress(
					() -> MembershipSettingsFactory.advertisedAddress(properties.getAdvertisedAddress(), environment))
			// the starter's own reactions (readiness, leadership notices, meters) never
			// go through the application's event multicaster, where a throwing
			// @EventListener would stop them
			.reactions(() -> reactions.orderedStream().toList())
			.noticeChannels(() -> noticeChannels.orderedStream().toList())
			.listener(publisher::publishEvent);
		// every bean of each: the starter's meters and an application's own metrics alike
		observer.orderedStream().forEach(builder::observer);
		metrics.orderedStream().forEach(builder::metrics);
		runObservers.orderedStream().forEach(builder::runObserver);
		// two without a @Primary one fail the start (a history silently off is the other
		// choice)
		RunHistoryStore history = properties.getHistory().isEnabled() ? runHistory.getIfAvailable() : null;
		if (history != null) {
			builder.runHistory(history, properties.getHistory().getBuffer())
				.runHistoryErrorMessages(
						properties.getHistory().getErrorDetail() == HistoryProperties.ErrorDetail.MESSAGE);
		}
		customizers.orderedStream().forEach((customizer) -> customizer.customize(builder));
		return builder.build();
	}

	@Bean
	@ConditionalOnBean(MembershipNode.class)
	@ConditionalOnMissingBean
	@ConditionalOnBooleanProperty(name = "membership.readiness.enabled", matchIfMissing = true)
	MembershipReadinessGate membershipReadinessGate(MembershipNode node, ApplicationEventPublisher publisher,
			MembershipProperties properties) {
		return new MembershipReadinessGate(node, publisher, properties.getReadiness().getTimeout());
	}

	@Bean
	@ConditionalOnBean(MembershipNode.class)
	@ConditionalOnMissingBean
	@ConditionalOnBooleanProperty(name = "membership.follow-readiness", matchIfMissing = true)
	MembershipReadinessDrain membershipReadinessDrain(MembershipNode node, ApplicationContext context) {
		return new MembershipReadinessDrain(node, context);
	}

	@Bean
	@ConditionalOnBean(MembershipNode.class)
	@ConditionalOnMissingBean
	MembershipLifecycle membershipLifecycle(MembershipNode node, Environment environment) {
		return new MembershipLifecycle(node, MembershipSettingsFactory.shutdownPhase(environment));
	}

}
