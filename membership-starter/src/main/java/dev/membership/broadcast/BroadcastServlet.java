package dev.membership.broadcast;

import java.io.IOException;
import java.nio.charset.StandardCharsets;

import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;

/** The receiving end of broadcasts: POST only; everything else is the receiver's. */
public class BroadcastServlet extends HttpServlet {

	private final transient BroadcastReceiver receiver;

	public BroadcastServlet(BroadcastReceiver receiver) {
		this.receiver = receiver;
	}

	@Override
	protected void doPost(HttpServletRequest request, HttpServletResponse response) throws IOException {
		BroadcastReceiver.Response answer = this.receiver.receive(request.getContentType(),
				request.getContentLengthLong(), request.getInputStream(),
				request.getHeader(BroadcastSettings.KEY_ID_HEADER),
				request.getHeader(BroadcastSettings.SIGNATURE_HEADER));
		response.setStatus(answer.status());
		response.setContentType("application/json");
		if (answer.signature() != null) {
			response.setHeader(BroadcastSettings.KEY_ID_HEADER, answer.keyId());
			response.setHeader(BroadcastSettings.SIGNATURE_HEADER, answer.signature());
		}
		byte[] body = answer.body().getBytes(StandardCharsets.UTF_8);
		response.setContentLength(body.length);
		response.getOutputStream().write(body);
	}

}
