package dev.membership.docs;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import de.bwaldvogel.mongo.MongoServer;
import de.bwaldvogel.mongo.backend.memory.MemoryBackend;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The reference's recipe for who may steer the cluster (docs/reference/actuator.md), its
 * two security chains as written there, in the README's application beside a page and a
 * form of its own: viewers read the endpoint, only operators write to it, and the rest of
 * the application stays closed to an anonymous caller. Before: the recipe's one chain was
 * named as the starter's endpoint bean (the start failed), and renamed, as the only
 * chain, it left the application's pages and {@code /actuator/env} open.
 */
class ClusterSecurityRecipeTests {

	private static final Path ACTUATOR = DocSnippetsCompileTests.ROOT.resolve("docs/reference/actuator.md");

	@Test
	void viewersReadOperatorsWriteAndTheRestOfTheApplicationStaysClosed(@TempDir Path work) throws Exception {
		Snippet recipe = Snippet.in(ACTUATOR)
			.stream()
			.filter((s) -> s.code().contains("SecurityFilterChain clusterEndpointSecurity"))
			.findFirst()
			.orElseThrow();
		List<Snippet> app = new ArrayList<>(Snippet.in(DocSnippetsCompileTests.ROOT.resolve("README.md"))
			.stream()
			.filter((s) -> s.code().startsWith("package "))
			.toList());
		app.add(new Snippet(ACTUATOR, recipe.line(), "package com.example.app;\n" + Snippet.IMPORTS + """
				import org.springframework.security.config.annotation.web.configuration.EnableWebSecurity;
				import org.springframework.security.core.userdetails.User;
				import org.springframework.security.provisioning.InMemoryUserDetailsManager;
				import org.springframework.web.bind.annotation.*;

				@Configuration(proxyBeanMethods = false)
				@EnableWebSecurity
				class ClusterSecurity {
				""" + recipe.code() + """

					@Bean
					InMemoryUserDetailsManager users() {
						return new InMemoryUserDetailsManager(
								User.withUsername("viewer").password("{noop}v").roles("VIEWER").build(),
								User.withUsername("operator").password("{noop}o").roles("VIEWER", "OPERATOR").build());
					}

				}

				@RestController
				class Pages {

					@GetMapping("/hello")
					String hello() {
						return "hello";
					}

					@PostMapping("/app/do")
					String act() {
						return "done";
					}

				}
				""", ""));
		MongoServer database = new MongoServer(new MemoryBackend());
		database.bind("127.0.0.1", 0);
		Map<String, Object> properties = new LinkedHashMap<>(ReadmeQuickStartTests.readmeProperties());
		properties.put("spring.mongodb.uri", "mongodb://127.0.0.1:" + database.getLocalAddress().getPort() + "/app");
		properties.put("server.port", "0");
		properties.put("server.address", "127.0.0.1");
		properties.put("membership.advertised-address", "127.0.0.1");
		properties.put("management.endpoints.web.exposure.include", "*");
		properties.put("management.endpoint.cluster.access", "unrestricted");
		try (ConfigurableApplicationContext context = ReadmeQuickStartTests.start(app, work, properties)) {
			int port = ((WebServerApplicationContext) context).getWebServer().getPort();
			HttpClient http = HttpClient.newHttpClient();
			assertThat(status(http, port, "GET", "/hello", null)).as("anonymous GET /hello").isEqualTo(401);
			assertThat(status(http, port, "GET", "/actuator/env", null)).as("anonymous GET /actuator/env")
				.isEqualTo(401);
			assertThat(status(http, port, "POST", "/app/do", null)).as("anonymous POST /app/do").isIn(401, 403);
			assertThat(status(http, port, "GET", "/hello", "viewer:v")).isEqualTo(200);
			assertThat(status(http, port, "GET", "/actuator/cluster", null)).isEqualTo(401);
			assertThat(status(http, port, "GET", "/actuator/cluster", "viewer:v")).isEqualTo(200);
			assertThat(status(http, port, "POST", "/actuator/cluster/undrain", "viewer:v")).isEqualTo(403);
			assertThat(status(http, port, "POST", "/actuator/cluster/undrain", null)).isEqualTo(401);
			assertThat(status(http, port, "POST", "/actuator/cluster/undrain", "operator:o")).isEqualTo(200);
		}
		finally {
			database.shutdownNow();
		}
	}

	private static int status(HttpClient http, int port, String method, String path, String user) throws Exception {
		HttpRequest.Builder request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
			.timeout(Duration.ofSeconds(5))
			.header("Content-Type", "application/json")
			.method(method, "POST".equals(method) ? HttpRequest.BodyPublishers.ofString("{}")
					: HttpRequest.BodyPublishers.noBody());
		if (user != null) {
			request.header("Authorization",
					"Basic " + Base64.getEncoder().encodeToString(user.getBytes(StandardCharsets.UTF_8)));
		}
		return http.send(request.build(), HttpResponse.BodyHandlers.discarding()).statusCode();
	}

}
