"""Amazon Bedrock providers: embeddings through `InvokeModel` (Titan Text Embeddings v2 or Cohere
Embed multilingual, chosen by model id) and rerank through the Agents runtime `Rerank` API. The
model ids are template parameters; the functions' IAM policies name exactly those models.
Every client error becomes ProviderError: the pipeline reports the stage, never the SDK text.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import boto3
import numpy as np
from botocore.config import Config
from botocore.exceptions import BotoCoreError, ClientError

from ...kernel.ports.models import ProviderError
from ...search.index import unit

if TYPE_CHECKING:
    from ...kernel.ports.models import Vectors

_CONFIG = Config(connect_timeout=2, read_timeout=10, retries={"max_attempts": 2, "mode": "standard"})
COHERE_BATCH = 96  # Cohere Embed's texts per request


class BedrockEmbedder:
    def __init__(self, model_id: str, region: str, client: Any = None) -> None:
        self.name = f"bedrock:{model_id}"
        self._model_id = model_id
        self._client = client or boto3.client("bedrock-runtime", region_name=region, config=_CONFIG)

    def _invoke(self, body: dict[str, Any]) -> dict[str, Any]:
        try:
            response = self._client.invoke_model(
                modelId=self._model_id, body=json.dumps(body), contentType="application/json", accept="application/json"
            )
            answer: dict[str, Any] = json.loads(response["body"].read())
        except (ClientError, BotoCoreError, ValueError, KeyError) as error:
            raise ProviderError("Bedrock embedding failed") from error
        return answer

    def embed(self, texts: Sequence[str], query: bool = False) -> Vectors:
        if not texts:
            return np.zeros((0, 0), dtype=np.float32)
        if self._model_id.startswith("cohere."):
            vectors: list[Any] = []
            for start in range(0, len(texts), COHERE_BATCH):
                batch = [text[:2048] for text in texts[start : start + COHERE_BATCH]]
                kind = "search_query" if query else "search_document"
                vectors += self._invoke({"texts": batch, "input_type": kind, "truncate": "END"})["embeddings"]
        else:  # Titan Text Embeddings v2: one text per request
            vectors = [self._invoke({"inputText": text[:20000], "normalize": True})["embedding"] for text in texts]
        return np.stack([unit(vector) for vector in vectors])


class BedrockReranker:
    def __init__(self, model_arn: str, region: str, client: Any = None) -> None:
        self.name = f"bedrock:{model_arn.rsplit('/', 1)[-1]}"
        self._model_arn = model_arn
        self._client = client or boto3.client("bedrock-agent-runtime", region_name=region, config=_CONFIG)

    def rerank(self, query: str, docs: Sequence[str]) -> list[float]:
        sources = [
            {"type": "INLINE", "inlineDocumentSource": {"type": "TEXT", "textDocument": {"text": doc[:4000]}}}
            for doc in docs
        ]
        try:
            response = self._client.rerank(
                queries=[{"type": "TEXT", "textQuery": {"text": query}}],
                sources=sources,
                rerankingConfiguration={
                    "type": "BEDROCK_RERANKING_MODEL",
                    "bedrockRerankingConfiguration": {
                        "numberOfResults": len(docs),
                        "modelConfiguration": {"modelArn": self._model_arn},
                    },
                },
            )
            scores = [0.0] * len(docs)
            for result in response["results"]:
                scores[int(result["index"])] = float(result["relevanceScore"])
        except (ClientError, BotoCoreError, KeyError, IndexError, ValueError) as error:
            raise ProviderError("Bedrock rerank failed") from error
        return scores
