<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="zh_CN">
<context>
    <name>BaseUrl</name>
    <message>
        <location filename="../../workbench/core/protocols/base_url.py" line="19"/>
        <source>removed spaces or quotes around the URL</source>
        <translation>去掉了 URL 前后的空格或引号</translation>
    </message>
    <message>
        <location filename="../../workbench/core/protocols/base_url.py" line="20"/>
        <source>added {scheme}:// (the URL had no scheme)</source>
        <translation>加上了 {scheme}://（URL 没有写协议）</translation>
    </message>
    <message>
        <location filename="../../workbench/core/protocols/base_url.py" line="21"/>
        <source>removed the user name and password (never kept in a URL)</source>
        <translation>去掉了用户名和密码（URL 中从不保存它们）</translation>
    </message>
    <message>
        <location filename="../../workbench/core/protocols/base_url.py" line="24"/>
        <source>removed &apos;{suffix}&apos;: that is an endpoint, the SDK appends it to the base URL</source>
        <translation>去掉了 &apos;{suffix}&apos;：这是接口路径，SDK 会自己把它加到 Base URL 后面</translation>
    </message>
    <message>
        <location filename="../../workbench/core/protocols/base_url.py" line="27"/>
        <source>removed the query string (base URLs take none; keys never go in URLs)</source>
        <translation>去掉了查询字符串（Base URL 不带查询参数；密钥从不放进 URL）</translation>
    </message>
    <message>
        <location filename="../../workbench/core/protocols/base_url.py" line="30"/>
        <source>removed trailing slashes</source>
        <translation>去掉了末尾的斜杠</translation>
    </message>
    <message>
        <location filename="../../workbench/core/protocols/base_url.py" line="59"/>
        <source>the base URL is empty; write it like https://host/v1</source>
        <translation>Base URL 为空；请写成 https://host/v1 这样的形式</translation>
    </message>
    <message>
        <location filename="../../workbench/core/protocols/base_url.py" line="60"/>
        <source>&apos;{shown}&apos; has spaces inside it; remove them (https://host/v1)</source>
        <translation>&apos;{shown}&apos; 中间有空格；请去掉它们（https://host/v1）</translation>
    </message>
    <message>
        <location filename="../../workbench/core/protocols/base_url.py" line="63"/>
        <source>&apos;{shown}&apos; is not an http(s) URL; write it like https://host/v1</source>
        <translation>&apos;{shown}&apos; 不是 http(s) URL；请写成 https://host/v1 这样的形式</translation>
    </message>
    <message>
        <location filename="../../workbench/core/protocols/base_url.py" line="66"/>
        <source>&apos;{shown}&apos; has no host; write it like https://host/v1</source>
        <translation>&apos;{shown}&apos; 没有主机名；请写成 https://host/v1 这样的形式</translation>
    </message>
    <message>
        <location filename="../../workbench/core/protocols/base_url.py" line="67"/>
        <source>&apos;{shown}&apos; has an invalid port; write it like https://host:8443/v1</source>
        <translation>&apos;{shown}&apos; 的端口无效；请写成 https://host:8443/v1 这样的形式</translation>
    </message>
    <message>
        <location filename="../../workbench/core/protocols/base_url.py" line="70"/>
        <source>&apos;{shown}&apos; has a user name or password in it; Attention Workbench never keeps, shows or sends credentials inside a URL. Remove the &apos;user:password@&apos; part and give the key as a reference: export MY_API_KEY=&lt;the password&gt; and pass --api-key-env MY_API_KEY (in the app: Key from an environment variable or the OS keyring). A gateway behind HTTP Basic auth takes a header instead: --header &apos;Authorization=Basic ${{MY_BASIC}}&apos;, MY_BASIC holding base64 of user:password</source>
        <translation>&apos;{shown}&apos; 中含有用户名或密码；Attention Workbench 从不在 URL 中保存、显示或发送凭据。请去掉 &apos;user:password@&apos; 部分，并以引用方式提供密钥：`export MY_API_KEY=&lt;密码&gt;` 后传入 --api-key-env MY_API_KEY（在应用中：密钥来自环境变量或系统密钥环）。使用 HTTP Basic 认证的网关改用请求头：--header &apos;Authorization=Basic ${{MY_BASIC}}&apos;，MY_BASIC 中存放 user:password 的 base64 编码</translation>
    </message>
</context>
<context>
    <name>Capacity</name>
    <message>
        <location filename="../../workbench/core/load/capacity_report.py" line="199"/>
        <location filename="../../workbench/core/load/capacity_report.py" line="313"/>
        <source> and </source>
        <translation> 且 </translation>
    </message>
    <message>
        <location filename="../../workbench/core/load/capacity_report.py" line="204"/>
        <source>requests at once</source>
        <translation>个并发请求</translation>
    </message>
    <message>
        <location filename="../../workbench/core/load/capacity_report.py" line="205"/>
        <source>req/s</source>
        <translation>req/s</translation>
    </message>
    <message>
        <location filename="../../workbench/core/load/capacity_report.py" line="226"/>
        <source>at least {load} {unit} (the top of the range searched)</source>
        <translation>至少 {load} {unit}（所搜索范围的上限）</translation>
    </message>
    <message>
        <location filename="../../workbench/core/load/capacity_report.py" line="234"/>
        <source>at least {load} {unit}</source>
        <translation>至少 {load} {unit}</translation>
    </message>
    <message>
        <location filename="../../workbench/core/load/capacity_report.py" line="241"/>
        <source>under {load} {unit}</source>
        <translation>低于 {load} {unit}</translation>
    </message>
    <message>
        <location filename="../../workbench/core/load/capacity_report.py" line="245"/>
        <source>not measured</source>
        <translation>未测得</translation>
    </message>
    <message>
        <location filename="../../workbench/core/load/capacity_report.py" line="283"/>
        <source>{model}&apos;s requests fail even one at a time: {failed}</source>
        <translation>{model} 即使一次只发一个请求也会失败：{failed}</translation>
    </message>
    <message>
        <location filename="../../workbench/core/load/capacity_report.py" line="294"/>
        <source>its {objective} is {value}</source>
        <translation>其 {objective} 为 {value}</translation>
    </message>
    <message>
        <location filename="../../workbench/core/load/capacity_report.py" line="303"/>
        <source>{within} of its {judged} requests within it</source>
        <translation>{judged} 个请求中仅 {within} 个达标</translation>
    </message>
    <message>
        <location filename="../../workbench/core/load/capacity_report.py" line="309"/>
        <source>its requests failed</source>
        <translation>其请求均失败</translation>
    </message>
    <message>
        <location filename="../../workbench/core/load/capacity_report.py" line="315"/>
        <source>{model} cannot hold {slo} even one request at a time: alone {figures}</source>
        <translation>{model} 即使一次只发一个请求也达不到 {slo}：单独运行时{figures}</translation>
    </message>
    <message>
        <location filename="../../workbench/core/load/capacity_report.py" line="319"/>
        <source>{model} cannot hold {slo} at {tokens} prompts even one request at a time: alone {figures}</source>
        <translation>{model} 在提示长度 {tokens} 下即使一次只发一个请求也达不到 {slo}：单独运行时{figures}</translation>
    </message>
    <message>
        <location filename="../../workbench/core/load/capacity_report.py" line="343"/>
        <source>{failed} of its {sent} requests failed ({classes})</source>
        <translation>{sent} 个请求中有 {failed} 个失败（{classes}）</translation>
    </message>
    <message>
        <location filename="../../workbench/core/load/capacity_report.py" line="357"/>
        <source>Fix what fails first (each row&apos;s error_class and error_message say why), then search again</source>
        <translation>请先修复失败的原因（每行的 error_class 和 error_message 说明了原因），再重新搜索</translation>
    </message>
    <message>
        <location filename="../../workbench/core/load/capacity_report.py" line="365"/>
        <source>Loosen the limit or serve them on more devices ({flag})</source>
        <translation>请放宽限值，或把这些模型部署到更多设备上（{flag}）</translation>
    </message>
    <message>
        <location filename="../../workbench/core/load/capacity_report.py" line="369"/>
        <source>Loosen the limit or serve it on more devices ({flag})</source>
        <translation>请放宽限值，或把该模型部署到更多设备上（{flag}）</translation>
    </message>
    <message>
        <location filename="../../workbench/core/load/capacity_report.py" line="373"/>
        <source>Loosen the limit, or serve the model faster (more devices, a faster deployment) or with shorter prompts</source>
        <translation>请放宽限值，或让模型更快（更多设备、更快的部署）或使用更短的提示</translation>
    </message>
    <message>
        <location filename="../../workbench/core/load/capacity_report.py" line="401"/>
        <source>{sentence}. {fix}</source>
        <translation>{sentence}。{fix}</translation>
    </message>
    <message>
        <location filename="../../workbench/core/load/capacity_report.py" line="424"/>
        <source>{model} misses the SLO even at {load} {unit} at {slo}</source>
        <translation>{model} 即使在 {load} {unit} 下也达不到 SLO（{slo}）</translation>
    </message>
    <message>
        <location filename="../../workbench/core/load/capacity_report.py" line="433"/>
        <source>{model} serves {answer} at {slo}</source>
        <translation>{model} 在 {slo} 下可承载 {answer}</translation>
    </message>
    <message>
        <location filename="../../workbench/core/load/capacity_report.py" line="444"/>
        <source>at {tokens} prompts</source>
        <translation>提示长度 {tokens}</translation>
    </message>
    <message>
        <location filename="../../workbench/core/load/capacity_report.py" line="474"/>
        <source>at token prices</source>
        <translation>按 token 价格计</translation>
    </message>
    <message>
        <location filename="../../workbench/core/load/capacity_report.py" line="489"/>
        <source>{model} {cost} per 1,000 requests {basis}</source>
        <translation>{model} 每 1,000 个请求 {cost}（{basis}）</translation>
    </message>
    <message>
        <location filename="../../workbench/core/load/capacity_report.py" line="498"/>
        <source>{costs} per 1,000 requests each {basis}</source>
        <translation>每 1,000 个请求各 {costs}（{basis}）</translation>
    </message>
    <message>
        <location filename="../../workbench/core/load/capacity_report.py" line="500"/>
        <source>{costs} per 1,000 requests {basis}</source>
        <translation>每 1,000 个请求 {costs}（{basis}）</translation>
    </message>
    <message>
        <location filename="../../workbench/core/load/capacity_report.py" line="502"/>
        <source> vs </source>
        <translation> 对 </translation>
    </message>
    <message>
        <location filename="../../workbench/core/load/capacity_report.py" line="397"/>
        <location filename="../../workbench/core/load/capacity_report.py" line="486"/>
        <source>; </source>
        <translation>；</translation>
    </message>
    <message>
        <location filename="../../workbench/core/load/capacity_report.py" line="467"/>
        <source>in device time on {devices} × {gpu} at {price} per device-hour</source>
        <translation>按设备时长计：{devices} × {gpu}，每设备小时 {price}</translation>
    </message>
    <message>
        <location filename="../../workbench/core/load/capacity_report.py" line="510"/>
        <source>{sentence}.</source>
        <translation>{sentence}。</translation>
    </message>
    <message>
        <location filename="../../workbench/core/planning/device_cost.py" line="42"/>
        <source>&apos;{text}&apos; is not a price per device-hour; write USD per device-hour, e.g. 2.5 or 2.5/h</source>
        <translation>&apos;{text}&apos; 不是每设备小时的价格；请写每设备小时的美元价格，例如 2.5 或 2.5/h</translation>
    </message>
    <message>
        <location filename="../../workbench/core/planning/device_cost.py" line="54"/>
        <source>&apos;{text}&apos;: a price per device-hour must be above 0 and at most {most} USD, e.g. 2.5/h</source>
        <translation>&apos;{text}&apos;：每设备小时的价格必须大于 0 且不超过 {most} 美元，例如 2.5/h</translation>
    </message>
</context>
<context>
    <name>CapacityView</name>
    <message>
        <location filename="../../workbench/ui/capacity_tab.py" line="49"/>
        <source>choose a model in a Compare pane first</source>
        <translation>请先在“对比”窗格中选择模型</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/capacity_tab.py" line="62"/>
        <source>choose a trace file with Dataset…</source>
        <translation>请用“数据集…”选择一个轨迹文件</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/capacity_tab.py" line="118"/>
        <source>Cannot run: %1</source>
        <translation>无法运行：%1</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/capacity_tab.py" line="104"/>
        <source>Replaying %1 requests on the trace&apos;s clock</source>
        <translation>按轨迹自身的时钟重放 %1 个请求</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/capacity_view.py" line="54"/>
        <source>Chat at 4K, Poisson</source>
        <translation>4K 对话，泊松到达</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/capacity_view.py" line="57"/>
        <source>Replay the sample trace</source>
        <translation>重放示例轨迹</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/capacity_view.py" line="181"/>
        <source>Preset:</source>
        <translation>预设：</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/capacity_view.py" line="182"/>
        <source>SLO:</source>
        <translation>SLO：</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/capacity_view.py" line="183"/>
        <source>Range:</source>
        <translation>范围：</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/capacity_view.py" line="184"/>
        <source>Tolerance:</source>
        <translation>容差：</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/capacity_view.py" line="185"/>
        <source>Speed:</source>
        <translation>速度：</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/capacity_view.py" line="186"/>
        <source>Device price:</source>
        <translation>设备价格：</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/capacity_view.py" line="189"/>
        <source>Replay the trace this many times faster than it was recorded (as bench --trace-speed)</source>
        <translation>以录制时的这么多倍速度重放轨迹（同 bench --trace-speed）</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/capacity_view.py" line="195"/>
        <source>The rates searched, LOW:HIGH in req/s (as bench --capacity-range); empty: from the rate of a request alone, down to %1 and up to %2 req/s</source>
        <translation>搜索的请求速率范围，格式为 下限:上限，单位 req/s（同 `bench --capacity-range`）；留空：从单个请求独占时的速率开始，最低 %1、最高 %2 req/s</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/capacity_view.py" line="201"/>
        <source>automatic</source>
        <translation>自动</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/capacity_view.py" line="258"/>
        <source>Your price per device-hour in USD, e.g. 2.5/h (up to %1; as bench --device-cost): a model served on a deployment (the built-in provider&apos;s models) costs its devices&apos; time at the load that held. Empty: the list price in hardware.toml. Models without a deployment keep their token prices</source>
        <translation>你的每设备小时价格，单位美元，例如 2.5/h（最高 %1；同 `bench --device-cost`）：部署在设备上的模型（内置服务商的模型）按其设备在达标负载下的时长计费。留空：使用 `hardware.toml` 中的标价。没有部署的模型仍按 token 价格计</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/capacity_view.py" line="265"/>
        <source>list price</source>
        <translation>标价</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/capacity_view.py" line="268"/>
        <source>%1 list</source>
        <translation>标价 %1</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/capacity_view.py" line="206"/>
        <source>Stop when the bracket&apos;s high end is within this much of its low end (as bench --capacity-tolerance)</source>
        <translation>当区间上端与下端相差不超过此比例时停止（同 `bench --capacity-tolerance`）</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/capacity_view.py" line="214"/>
        <source>Dataset…</source>
        <translation>数据集…</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/capacity_view.py" line="217"/>
        <source>A dataset or trace file (OpenAI-style JSONL, ShareGPT JSON, Mooncake JSONL or the Azure trace CSV), read as `bench --dataset` reads it: its requests&apos; sizes are sent at each rate of the search</source>
        <translation>数据集或轨迹文件（OpenAI 风格 JSONL、ShareGPT JSON、Mooncake JSONL 或 Azure 轨迹 CSV），按 `bench --dataset` 的方式读取：搜索的每个速率都发送其请求的大小</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/capacity_view.py" line="229"/>
        <source>Replay trace</source>
        <translation>重放轨迹</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/capacity_view.py" line="229"/>
        <source>Search</source>
        <translation>搜索</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/capacity_view.py" line="231"/>
        <source>Stop</source>
        <translation>停止</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/capacity_view.py" line="232"/>
        <source>e.g. ttft_p90:3s,tpot_p90:60ms (figures ttft, tpot, e2e)</source>
        <translation>例如 ttft_p90:3s,tpot_p90:60ms（指标 ttft、tpot、e2e）</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/capacity_view.py" line="233"/>
        <source>Goodput vs offered rate</source>
        <translation>有效吞吐与请求速率</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/capacity_view.py" line="234"/>
        <location filename="../../workbench/ui/capacity_view.py" line="237"/>
        <source>offered rate (req/s)</source>
        <translation>请求速率（req/s）</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/capacity_view.py" line="235"/>
        <source>within the SLO (req/s)</source>
        <translation>满足 SLO（req/s）</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/capacity_view.py" line="236"/>
        <source>Latency vs offered rate</source>
        <translation>延迟与请求速率</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/capacity_view.py" line="239"/>
        <source>%1 (ms)</source>
        <translation>%1 (ms)</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/capacity_view.py" line="239"/>
        <source>observed percentile</source>
        <translation>实测分位数</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/capacity_view.py" line="245"/>
        <source>Each pane&apos;s model is searched in turn: x2 steps, then bisection, until the SLO&apos;s limit is bracketed within the tolerance.</source>
        <translation>依次搜索每个窗格的模型：先按 2 倍步进，再二分，直到 SLO 的界限落在容差范围内。</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/capacity_view.py" line="323"/>
        <source>Choose a dataset or trace</source>
        <translation>选择数据集或轨迹</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/capacity_view.py" line="325"/>
        <source>Datasets (*.jsonl *.json *.csv)</source>
        <translation>数据集 (*.jsonl *.json *.csv)</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/capacity_view.py" line="342"/>
        <source>%1: %2 requests%3</source>
        <translation>%1：%2 个请求%3</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/capacity_view.py" line="345"/>
        <source>, with timestamps</source>
        <translation>，带时间戳</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/capacity_view.py" line="375"/>
        <source>%1 of at most %2 requests · elapsed %3 s</source>
        <translation>%1 / 至多 %2 个请求 · 已用 %3 秒</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/capacity_view.py" line="417"/>
        <source>Done: %1 requests of at most %2.</source>
        <translation>完成：%1 个请求（至多 %2 个）。</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/capacity_view.py" line="475"/>
        <source>SLO</source>
        <translation>SLO</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/capacity_view.py" line="481"/>
        <source>over the limit; its percentile not measured</source>
        <translation>超出限值；其百分位未测得</translation>
    </message>
</context>
<context>
    <name>ConfigImport</name>
    <message>
        <location filename="../../workbench/core/importers/detect.py" line="57"/>
        <source>skipped {file}: {why}</source>
        <translation>已跳过 {file}：{why}</translation>
    </message>
    <message>
        <location filename="../../workbench/core/importers/detect.py" line="58"/>
        <source>{name} ({file}) has the same base URL and key as {into}: merged into it</source>
        <translation>{name}（{file}）与 {into} 的 Base URL 和密钥相同：已合并进 {into}</translation>
    </message>
    <message>
        <location filename="../../workbench/core/importers/detect.py" line="123"/>
        <source>{path}: no known config in this folder (looked for {looked})</source>
        <translation>{path}：此文件夹中没有已知的配置（查找过 {looked}）</translation>
    </message>
    <message>
        <location filename="../../workbench/core/importers/detect.py" line="128"/>
        <source>{path}: no such file or folder</source>
        <translation>{path}：没有这个文件或文件夹</translation>
    </message>
    <message>
        <location filename="../../workbench/core/importers/_files.py" line="30"/>
        <location filename="../../workbench/core/importers/detect.py" line="135"/>
        <source>{why}; give the path of the config file itself</source>
        <translation>{why}；请给出配置文件本身的路径</translation>
    </message>
    <message>
        <location filename="../../workbench/core/importers/detect.py" line="140"/>
        <source>{name}: cannot read it ({why})</source>
        <translation>{name}：无法读取（{why}）</translation>
    </message>
    <message>
        <location filename="../../workbench/core/importers/detect.py" line="230"/>
        <source>{path}: nothing to import ({skipped})</source>
        <translation>{path}：没有可导入的内容（{skipped}）</translation>
    </message>
    <message>
        <location filename="../../workbench/core/importers/_base.py" line="49"/>
        <source>a key written in the file, {shown}</source>
        <translation>文件中写明的密钥 {shown}</translation>
    </message>
    <message>
        <location filename="../../workbench/core/importers/_base.py" line="50"/>
        <source>a placeholder, not a key: &apos;{placeholder}&apos;</source>
        <translation>占位文字，不是密钥：&apos;{placeholder}&apos;</translation>
    </message>
    <message>
        <location filename="../../workbench/core/importers/_base.py" line="51"/>
        <source>no key in the file</source>
        <translation>文件中没有密钥</translation>
    </message>
    <message>
        <location filename="../../workbench/core/importers/_base.py" line="151"/>
        <source>{label}: header {header} carries a credential and was not imported (keys never go into the providers file); give the key through the key reference instead, or write the header as &quot;Bearer ${{VAR}}&quot;</source>
        <translation>{label}：请求头 {header} 带有凭据，未导入（密钥从不写入服务商文件）；请改用密钥引用提供密钥，或把该请求头写成 &quot;Bearer ${{VAR}}&quot;</translation>
    </message>
    <message>
        <location filename="../../workbench/core/importers/_base.py" line="157"/>
        <source>{label}: ignored header {header}: not a valid HTTP header</source>
        <translation>{label}：已忽略请求头 {header}：不是有效的 HTTP 请求头</translation>
    </message>
    <message>
        <location filename="../../workbench/core/importers/_base.py" line="160"/>
        <source>{at} is empty: no key imported</source>
        <translation>{at} 为空：未导入密钥</translation>
    </message>
    <message>
        <location filename="../../workbench/core/importers/_base.py" line="161"/>
        <source>{at} holds a placeholder (&apos;{placeholder}&apos;), not a key: put the real key in an environment variable and import again, or add the provider with --api-key-env</source>
        <translation>{at} 是占位文本（&apos;{placeholder}&apos;），不是密钥：请把真实密钥放进环境变量后重新导入，或用 --api-key-env 添加该服务商</translation>
    </message>
    <message>
        <location filename="../../workbench/core/importers/_base.py" line="166"/>
        <source>{at}: removed spaces around the key (a common cause of 401)</source>
        <translation>{at}：已去掉密钥前后的空白（这是 401 的常见原因）</translation>
    </message>
    <message>
        <location filename="../../workbench/core/importers/_base.py" line="169"/>
        <source>{label}: {url} is Anthropic&apos;s own API, which does not speak OpenAI chat completions; imported as chat anyway: set protocol = &quot;anthropic&quot; for it (or pass --protocol anthropic), and check it with `workbench doctor`</source>
        <translation>{label}：{url} 是 Anthropic 官方 API，不支持 OpenAI Chat Completions；仍按 chat 导入：请为它设置 protocol = &quot;anthropic&quot;（或传入 --protocol anthropic），并用 `workbench doctor` 检查</translation>
    </message>
    <message>
        <location filename="../../workbench/core/importers/_base.py" line="175"/>
        <source>{label}: {url} looks like an Anthropic-only endpoint (Messages API); imported as chat since many gateways speak both: if it answers 404, set protocol = &quot;anthropic&quot; for it (or pass --protocol anthropic); check it with `workbench doctor`</source>
        <translation>{label}：{url} 看起来是仅支持 Anthropic 的端点（Messages API）；由于很多网关两种协议都支持，仍按 chat 导入：如果它返回 404，请为它设置 protocol = &quot;anthropic&quot;（或传入 --protocol anthropic）；可用 `workbench doctor` 检查</translation>
    </message>
    <message>
        <location filename="../../workbench/core/importers/_base.py" line="181"/>
        <source>{where} has a user name and password in it: the URL is saved without them, and the password becomes this provider&apos;s key ({shown}), kept as the key plan below says; if the server wants HTTP Basic auth instead, give it the header Authorization: Basic ${{VAR}}</source>
        <translation>{where} 中含有用户名和密码：保存的 URL 不含它们，密码成为该服务商的密钥（{shown}），按下面的密钥计划保存；如果服务器要的是 HTTP Basic 认证，请改为给它加请求头 Authorization: Basic ${{VAR}}</translation>
    </message>
    <message>
        <location filename="../../workbench/core/importers/_base.py" line="187"/>
        <source>{where} has a user name or password in it, which is never saved in a URL: left out</source>
        <translation>{where} 中含有用户名或密码，URL 中从不保存这些：已去掉</translation>
    </message>
    <message>
        <location filename="../../workbench/core/importers/_base.py" line="191"/>
        <source>{where} has a user name or password in it, which is never saved in a URL: left out (the file&apos;s own key is used)</source>
        <translation>{where} 中含有用户名或密码，URL 中从不保存这些：已去掉（使用文件自己的密钥）</translation>
    </message>
    <message>
        <location filename="../../workbench/core/importers/_base.py" line="401"/>
        <source>added /v1: Claude Code sends its requests to ANTHROPIC_BASE_URL/v1</source>
        <translation>加上了 /v1：Claude Code 把请求发往 ANTHROPIC_BASE_URL/v1</translation>
    </message>
    <message>
        <location filename="../../workbench/core/importers/save.py" line="20"/>
        <source>cannot be saved: no OS keyring here; export it as an environment variable and re-import, or add the provider with --api-key-env</source>
        <translation>无法保存：此处没有系统密钥环；请把它导出为环境变量后重新导入，或用 --api-key-env 添加该服务商</translation>
    </message>
    <message>
        <location filename="../../workbench/core/importers/save.py" line="26"/>
        <source>stays env reference ${var} (set in this shell)</source>
        <translation>保持为环境变量引用 ${var}（在当前 shell 中已设置）</translation>
    </message>
    <message>
        <location filename="../../workbench/core/importers/save.py" line="27"/>
        <source>stays env reference ${var} (not set in this shell)</source>
        <translation>保持为环境变量引用 ${var}（在当前 shell 中未设置）</translation>
    </message>
    <message>
        <location filename="../../workbench/core/importers/save.py" line="30"/>
        <source>goes to the OS keyring as account &apos;{account}&apos;</source>
        <translation>存入系统密钥环，账户名为 &apos;{account}&apos;</translation>
    </message>
    <message>
        <location filename="../../workbench/core/importers/save.py" line="31"/>
        <source> (e.g. export {var}=... then `workbench providers add {name} --base-url URL --api-key-env {var}`)</source>
        <translation>（例如 `export {var}=...` 然后 `workbench providers add {name} --base-url URL --api-key-env {var}`）</translation>
    </message>
    <message>
        <location filename="../../workbench/core/importers/save.py" line="36"/>
        <source>keeps its saved key ({saved}); the file has only a placeholder</source>
        <translation>保留已保存的密钥（{saved}）；文件中只有占位文字</translation>
    </message>
    <message>
        <location filename="../../workbench/core/importers/save.py" line="39"/>
        <source>keeps its saved key ({saved}); the file has no key</source>
        <translation>保留已保存的密钥（{saved}）；文件中没有密钥</translation>
    </message>
    <message>
        <location filename="../../workbench/core/importers/save.py" line="42"/>
        <source>no key saved: the file holds a placeholder (&apos;{placeholder}&apos;), not a key; export the real key as an environment variable and re-import, or use `workbench providers add {name} --api-key-env VAR`</source>
        <translation>未保存密钥：文件中是占位文字（&apos;{placeholder}&apos;），不是密钥；请把真正的密钥导出为环境变量后重新导入，或使用 `workbench providers add {name} --api-key-env VAR`</translation>
    </message>
    <message>
        <location filename="../../workbench/core/importers/save.py" line="48"/>
        <source>no key in the file: saved without a key</source>
        <translation>文件中没有密钥：保存时不带密钥</translation>
    </message>
    <message>
        <location filename="../../workbench/core/importers/save.py" line="53"/>
        <source>updates the saved provider &apos;{name}&apos; (same base URL)</source>
        <translation>更新已保存的服务商 &apos;{name}&apos;（Base URL 相同）</translation>
    </message>
    <message>
        <location filename="../../workbench/core/importers/save.py" line="56"/>
        <source>updates the saved provider &apos;{name}&apos; (same base URL and key)</source>
        <translation>更新已保存的服务商 &apos;{name}&apos;（Base URL 和密钥都相同）</translation>
    </message>
    <message>
        <location filename="../../workbench/core/importers/save.py" line="59"/>
        <source>saved as &apos;{name}&apos;: &apos;{imported}&apos; already names a provider with another URL</source>
        <translation>保存为 &apos;{name}&apos;：&apos;{imported}&apos; 已是另一个 URL 的服务商的名称</translation>
    </message>
    <message>
        <location filename="../../workbench/core/importers/_files.py" line="26"/>
        <source>{file}: {message}</source>
        <translation>{file}：{message}</translation>
    </message>
    <message>
        <location filename="../../workbench/core/importers/_files.py" line="27"/>
        <source>{file}, line {line}: {message}</source>
        <translation>{file} 第 {line} 行：{message}</translation>
    </message>
    <message>
        <location filename="../../workbench/core/importers/_files.py" line="28"/>
        <source>{field} {problem}</source>
        <translation>{field} {problem}</translation>
    </message>
    <message>
        <location filename="../../workbench/core/importers/_files.py" line="29"/>
        <source>{part}: {message}</source>
        <translation>{part}：{message}</translation>
    </message>
    <message>
        <location filename="../../workbench/core/importers/_files.py" line="31"/>
        <source>more than {limit} bytes is too large for a config file</source>
        <translation>超过 {limit} 字节，对配置文件来说太大了</translation>
    </message>
    <message>
        <location filename="../../workbench/core/importers/_files.py" line="34"/>
        <source>not found, or not a file</source>
        <translation>找不到，或不是文件</translation>
    </message>
    <message>
        <location filename="../../workbench/core/importers/_files.py" line="35"/>
        <source>cannot read it ({why})</source>
        <translation>无法读取（{why}）</translation>
    </message>
    <message>
        <location filename="../../workbench/core/importers/_files.py" line="36"/>
        <source>not UTF-8 text (byte {byte})</source>
        <translation>不是 UTF-8 文本（第 {byte} 字节）</translation>
    </message>
    <message>
        <location filename="../../workbench/core/importers/_files.py" line="37"/>
        <source>not valid JSON: {why} (column {column})</source>
        <translation>不是有效的 JSON：{why}（第 {column} 列）</translation>
    </message>
    <message>
        <location filename="../../workbench/core/importers/_files.py" line="38"/>
        <source>not valid JSON: {why}</source>
        <translation>不是有效的 JSON：{why}</translation>
    </message>
    <message>
        <location filename="../../workbench/core/importers/_files.py" line="39"/>
        <source>not valid JSON: nested too deeply</source>
        <translation>不是有效的 JSON：嵌套太深</translation>
    </message>
    <message>
        <location filename="../../workbench/core/importers/_files.py" line="40"/>
        <source>expected a JSON object at the top level, found {found}</source>
        <translation>顶层应为 JSON 对象，实际为{found}</translation>
    </message>
    <message>
        <location filename="../../workbench/core/importers/_shapes.py" line="27"/>
        <source>is missing</source>
        <translation>缺失</translation>
    </message>
    <message>
        <location filename="../../workbench/core/importers/_shapes.py" line="28"/>
        <source>must be {expected}, found {got}</source>
        <translation>应为{expected}，实际为{got}</translation>
    </message>
    <message>
        <location filename="../../workbench/core/importers/_shapes.py" line="29"/>
        <source>{file}: ignored {field}: {problem}</source>
        <translation>{file}：已忽略 {field}：{problem}</translation>
    </message>
    <message>
        <location filename="../../workbench/core/importers/benchmark.py" line="41"/>
        <source>{label}: no api_key_env: the provider is saved without a key</source>
        <translation>{label}：没有 api_key_env：该服务商将不带密钥保存</translation>
    </message>
    <message>
        <location filename="../../workbench/core/importers/toml_client.py" line="43"/>
        <source>{label}: [provider] has no api_key_env: saved without a key</source>
        <translation>{label}：[provider] 没有 api_key_env：不带密钥保存</translation>
    </message>
    <message>
        <location filename="../../workbench/core/importers/ccswitch.py" line="61"/>
        <source>{label}: skipped {where} (app {app} is not one CC Switch entry type the workbench reads)</source>
        <translation>{label}：已跳过 {where}（应用 {app} 不是本工具能读取的 CC Switch 条目类型）</translation>
    </message>
    <message>
        <location filename="../../workbench/core/importers/ccswitch.py" line="65"/>
        <source>{label}: skipped {entry} ({app}): it has no base URL (an official login, nothing to import)</source>
        <translation>{label}：已跳过 {entry}（{app}）：它没有 Base URL（官方登录，没有可导入的内容）</translation>
    </message>
    <message>
        <location filename="../../workbench/core/importers/ccswitch.py" line="69"/>
        <source>{label}: skipped {where}: no baseUrl</source>
        <translation>{label}：已跳过 {where}：没有 baseUrl</translation>
    </message>
    <message>
        <location filename="../../workbench/core/importers/claude.py" line="24"/>
        <source>{label}: this is the flat api_base/api_key shape some setup guides show; Claude Code itself reads env.ANTHROPIC_BASE_URL and env.ANTHROPIC_AUTH_TOKEN</source>
        <translation>{label}：这是一些配置教程里的扁平 api_base/api_key 写法；Claude Code 本身读取的是 env.ANTHROPIC_BASE_URL 和 env.ANTHROPIC_AUTH_TOKEN</translation>
    </message>
    <message>
        <location filename="../../workbench/core/importers/cline.py" line="50"/>
        <source>{label}: skipped {others} (not OpenAI Compatible)</source>
        <translation>{label}：已跳过 {others}（不是 OpenAI Compatible）</translation>
    </message>
    <message>
        <location filename="../../workbench/core/importers/cline.py" line="53"/>
        <source>{label}: {field} ({other}) differs from providers.json ({url}); providers.json wins</source>
        <translation>{label}：{field}（{other}）与 providers.json 中的（{url}）不同；以 providers.json 为准</translation>
    </message>
    <message>
        <location filename="../../workbench/core/importers/cline.py" line="57"/>
        <source>{label}: {field} is {value}, not &apos;openai&apos;; imported openAiBaseUrl anyway</source>
        <translation>{label}：{field} 为 {value}，不是 &apos;openai&apos;；仍导入了 openAiBaseUrl</translation>
    </message>
    <message>
        <location filename="../../workbench/core/importers/cline.py" line="60"/>
        <source>{label}: no secrets.json beside it (Cline may keep the key in VS Code&apos;s secret storage); the provider is saved without a key</source>
        <translation>{label}：旁边没有 secrets.json（Cline 可能把密钥存在 VS Code 的机密存储中）；该服务商将不带密钥保存</translation>
    </message>
    <message>
        <location filename="../../workbench/core/importers/vscode.py" line="40"/>
        <source>{label}: cline.apiProvider is {value}, not &apos;openai&apos;; imported the cline.openAi* settings anyway</source>
        <translation>{label}：cline.apiProvider 为 {value}，不是 &apos;openai&apos;；仍导入了 cline.openAi* 设置</translation>
    </message>
</context>
<context>
    <name>ConnectionTest</name>
    <message>
        <location filename="../../workbench/ui/connection_test.py" line="64"/>
        <source>Connection test</source>
        <translation>连接测试</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/connection_test.py" line="72"/>
        <source>Not run yet.</source>
        <translation>尚未运行。</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/connection_test.py" line="65"/>
        <source>Connection checks</source>
        <translation>连接检查</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/connection_test.py" line="66"/>
        <source>Check</source>
        <translation>检查项</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/connection_test.py" line="66"/>
        <source>Result</source>
        <translation>结果</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/connection_test.py" line="108"/>
        <source>Cause: %1</source>
        <translation>原因：%1</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/connection_test.py" line="109"/>
        <source>Fix: %1</source>
        <translation>解决办法：%1</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/connection_test.py" line="122"/>
        <source>✓ All checks passed (%1 passed, %2 skipped).</source>
        <translation>✓ 全部检查通过（%1 项通过，%2 项跳过）。</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/connection_test.py" line="130"/>
        <source>✗ %1 check(s) failed. First: %2 — %3</source>
        <translation>✗ %1 项检查失败。首个失败：%2 — %3</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/connection_test.py" line="136"/>
        <source>Key: %1</source>
        <translation>密钥：%1</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/connection_test.py" line="139"/>
        <source>Warning: %1</source>
        <translation>警告：%1</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/connection_test.py" line="156"/>
        <source>Base URL</source>
        <translation>Base URL</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/connection_test.py" line="157"/>
        <source>Proxy</source>
        <translation>代理</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/connection_test.py" line="158"/>
        <source>DNS</source>
        <translation>DNS</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/connection_test.py" line="159"/>
        <source>TCP connection</source>
        <translation>TCP 连接</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/connection_test.py" line="160"/>
        <source>TLS</source>
        <translation>TLS</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/connection_test.py" line="161"/>
        <source>API path (/v1)</source>
        <translation>API 路径 (/v1)</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/connection_test.py" line="162"/>
        <source>Key (auth)</source>
        <translation>密钥（认证）</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/connection_test.py" line="163"/>
        <source>Model</source>
        <translation>模型</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/connection_test.py" line="164"/>
        <source>Streamed reply</source>
        <translation>流式响应</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/connection_test.py" line="165"/>
        <source>Rate limit / quota</source>
        <translation>限流 / 配额</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/connection_test.py" line="166"/>
        <source>HTML instead of JSON</source>
        <translation>返回 HTML 而非 JSON</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/connection_test.py" line="167"/>
        <source>Network round trip</source>
        <translation>网络往返</translation>
    </message>
</context>
<context>
    <name>CrashDialog</name>
    <message>
        <location filename="../../workbench/ui/crash_dialog.py" line="42"/>
        <source>Attention Workbench: unexpected error</source>
        <translation>Attention Workbench：意外错误</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/crash_dialog.py" line="49"/>
        <source>Something went wrong. The details below, the crash file and the log help find the cause; keys and passwords are masked in all of them.</source>
        <translation>出现了问题。下面的详细信息、崩溃文件和日志有助于查明原因；其中的密钥和密码都已遮盖。</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/crash_dialog.py" line="65"/>
        <source>Copy</source>
        <translation>复制</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/crash_dialog.py" line="69"/>
        <source>Open the log folder</source>
        <translation>打开日志文件夹</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/crash_dialog.py" line="79"/>
        <source>Crash file: {0}</source>
        <translation>崩溃文件：{0}</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/crash_dialog.py" line="81"/>
        <source>Log: {0}</source>
        <translation>日志：{0}</translation>
    </message>
</context>
<context>
    <name>CsvRow</name>
    <message>
        <location filename="../../workbench/ui/kernel_csv_row.py" line="70"/>
        <source>Open CSV…</source>
        <translation>打开 CSV…</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/kernel_csv_row.py" line="72"/>
        <source>Show a kernel CSV (workbench kernels --csv, benchmarks/gpu_decode.py)</source>
        <translation>显示内核 CSV（由 `workbench kernels --csv` 或 benchmarks/gpu_decode.py 写出）</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/kernel_csv_row.py" line="74"/>
        <source>Load the H200 measurements</source>
        <translation>载入 H200 实测结果</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/kernel_csv_row.py" line="76"/>
        <source>The decode sweep measured on one NVIDIA H200, shipped with the app</source>
        <translation>在一块 NVIDIA H200 上实测的解码扫描，随应用提供</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/kernel_csv_row.py" line="78"/>
        <source>shapes</source>
        <translation>形状</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/kernel_csv_row.py" line="79"/>
        <source>batch</source>
        <translation>批大小</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/kernel_csv_row.py" line="80"/>
        <source>backend</source>
        <translation>后端</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/kernel_csv_row.py" line="94"/>
        <source>Open a kernel CSV</source>
        <translation>打开内核 CSV</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/kernel_csv_row.py" line="94"/>
        <source>CSV (*.csv);;All files (*)</source>
        <translation>CSV (*.csv);;所有文件 (*)</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/kernel_csv_row.py" line="83"/>
        <location filename="../../workbench/ui/kernel_csv_row.py" line="123"/>
        <source>all</source>
        <translation>全部</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/kernel_csv_row.py" line="131"/>
        <source>%1: %2 rows, %3</source>
        <translation>%1：%2 行，%3</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/kernel_csv_row.py" line="134"/>
        <source>no device named</source>
        <translation>未注明设备</translation>
    </message>
</context>
<context>
    <name>Doctor</name>
    <message>
        <location filename="../../workbench/core/doctor/messages.py" line="298"/>
        <source>the server generated tokens (completion_tokens {tokens}, finish_reason {finish}) but sent none as visible text: special tokens it does not decode (an end-of-turn or a thinking marker), or a character cut in the middle of its UTF-8 bytes. The model id is fine: it answered</source>
        <translation>服务器生成了 token（completion_tokens {tokens}，finish_reason {finish}），但没有发送任何可见文本：可能是它不解码的特殊 token（回合结束或思考标记），或一个在 UTF-8 字节中间被截断的字符。模型 ID 没有问题：它作出了回答</translation>
    </message>
    <message>
        <location filename="../../workbench/core/doctor/messages.py" line="305"/>
        <source>raise max_tokens (with finish_reason length the answer may not have reached any text yet); check the model&apos;s chat template and tokenizer on the server: does it stop at, or print, its end-of-turn token?</source>
        <translation>调大 max_tokens（finish_reason 为 length 时，回答可能还没写到任何文本）；检查服务器上该模型的聊天模板和分词器：它是在回合结束 token 处停止，还是把它打印出来？</translation>
    </message>
    <message>
        <location filename="../../workbench/core/doctor/messages.py" line="12"/>
        <source>a leading newline</source>
        <translation>开头有换行符</translation>
    </message>
    <message>
        <location filename="../../workbench/core/doctor/messages.py" line="13"/>
        <source>leading spaces</source>
        <translation>开头有空格</translation>
    </message>
    <message>
        <location filename="../../workbench/core/doctor/messages.py" line="14"/>
        <source>a trailing newline</source>
        <translation>结尾有换行符</translation>
    </message>
    <message>
        <location filename="../../workbench/core/doctor/messages.py" line="15"/>
        <source>trailing spaces</source>
        <translation>结尾有空格</translation>
    </message>
    <message>
        <location filename="../../workbench/core/doctor/messages.py" line="16"/>
        <source>{first} and {second}</source>
        <translation>{first}，{second}</translation>
    </message>
    <message>
        <location filename="../../workbench/core/doctor/messages.py" line="17"/>
        <source>the key has {where} (whitespace around it: a copy-paste or `$(cat file)` leftover); sent as is, servers answer 401, and a newline cannot even be sent in a header</source>
        <translation>密钥{where}（前后有空白：复制粘贴或 `$(cat file)` 留下的）；原样发送时服务器会返回 401，换行符甚至无法放进请求头</translation>
    </message>
    <message>
        <location filename="../../workbench/core/doctor/messages.py" line="22"/>
        <source>the key is wrapped in quotes, which became part of it</source>
        <translation>密钥被引号包住，引号成了密钥的一部分</translation>
    </message>
    <message>
        <location filename="../../workbench/core/doctor/messages.py" line="26"/>
        <source>the key starts with &apos;Bearer &apos;: the client adds that word itself</source>
        <translation>密钥以 &apos;Bearer &apos; 开头：客户端会自己加上这个词</translation>
    </message>
    <message>
        <location filename="../../workbench/core/doctor/messages.py" line="30"/>
        <source>the key has spaces inside it (an incomplete or joined copy?)</source>
        <translation>密钥中间有空格（复制不完整或拼接了？）</translation>
    </message>
    <message>
        <location filename="../../workbench/core/doctor/messages.py" line="34"/>
        <source>the key has non-ASCII characters: probably the placeholder text of an example (like 你的_API_Key) rather than a real key</source>
        <translation>密钥含有非 ASCII 字符：很可能是示例里的占位文字（如 你的_API_Key），而不是真正的密钥</translation>
    </message>
    <message>
        <location filename="../../workbench/core/doctor/messages.py" line="39"/>
        <source>the base URL is not usable: {problem}</source>
        <translation>Base URL 无法使用：{problem}</translation>
    </message>
    <message>
        <location filename="../../workbench/core/doctor/messages.py" line="40"/>
        <source>write the base URL the provider documents, like https://host/v1</source>
        <translation>填写服务商文档给出的 Base URL，例如 https://host/v1</translation>
    </message>
    <message>
        <location filename="../../workbench/core/doctor/messages.py" line="44"/>
        <source>the base URL is not in base form: {notes}</source>
        <translation>Base URL 不是基础形式：{notes}</translation>
    </message>
    <message>
        <location filename="../../workbench/core/doctor/messages.py" line="48"/>
        <source> (a full endpoint URL was pasted; the SDK appends /chat/completions itself, so the request would go to .../chat/completions/chat/completions)</source>
        <translation>（粘贴的是完整的接口地址；SDK 会自己加上 /chat/completions，请求会发到 .../chat/completions/chat/completions）</translation>
    </message>
    <message>
        <location filename="../../workbench/core/doctor/messages.py" line="53"/>
        <source>the base URL should be {url}</source>
        <translation>Base URL 应为 {url}</translation>
    </message>
    <message>
        <location filename="../../workbench/core/doctor/messages.py" line="54"/>
        <source>local proxy failed: requests to this host go through {proxy} ({source}), and it does not answer: {names}</source>
        <translation>本地代理失败：发往该主机的请求要经过 {proxy}（{source}），而它没有响应：{names}</translation>
    </message>
    <message>
        <location filename="../../workbench/core/doctor/messages.py" line="59"/>
        <source>local proxy failed: {names} points at a proxy nothing answers on; this host is reached directly ({reason}), but other hosts and other tools that read these variables will fail</source>
        <translation>本地代理失败：{names} 指向的代理没有任何响应；该主机是直连的（{reason}），但其他主机和读取这些变量的其他工具会失败</translation>
    </message>
    <message>
        <location filename="../../workbench/core/doctor/messages.py" line="65"/>
        <source>unset it or fix it (start the proxy, or correct its host and port); a local server is reached directly</source>
        <translation>取消设置或修正它（启动代理，或改正其主机和端口）；本地服务器会直连</translation>
    </message>
    <message>
        <location filename="../../workbench/core/doctor/messages.py" line="76"/>
        <source>check the spelling of the host (copy it from the provider&apos;s docs) and that this machine is online</source>
        <translation>检查主机名的拼写（从服务商文档复制），以及本机是否联网</translation>
    </message>
    <message>
        <location filename="../../workbench/core/doctor/messages.py" line="81"/>
        <source>nothing listens on {who}: the server is not running, or the port is wrong</source>
        <translation>{who} 上没有服务在监听：服务器没有运行，或端口错误</translation>
    </message>
    <message>
        <location filename="../../workbench/core/doctor/messages.py" line="85"/>
        <source>{who} cannot be reached ({why}): a firewall, a wrong host, or a network that needs a proxy (a timeout)</source>
        <translation>无法连接 {who}（{why}）：防火墙、主机错误，或网络需要代理（超时）</translation>
    </message>
    <message>
        <location filename="../../workbench/core/doctor/messages.py" line="90"/>
        <source>start the server, or correct the port in the base URL</source>
        <translation>启动服务器，或改正 Base URL 中的端口</translation>
    </message>
    <message>
        <location filename="../../workbench/core/doctor/messages.py" line="94"/>
        <source>check the host and port; if this network needs a proxy, set HTTPS_PROXY; a local server is reached directly</source>
        <translation>检查主机和端口；如果网络需要代理，设置 HTTPS_PROXY；本地服务器会直连</translation>
    </message>
    <message>
        <location filename="../../workbench/core/doctor/messages.py" line="99"/>
        <source>if a corporate proxy or antivirus inspects TLS, install its root certificate (or point SSL_CERT_FILE at it); otherwise tell the provider. Turn verification off only for a lab server, with its warning shown</source>
        <translation>如果公司代理或杀毒软件会检查 TLS，安装它的根证书（或让 SSL_CERT_FILE 指向它）；否则告知服务商。只有实验用服务器才可关闭验证，并且会显示警告</translation>
    </message>
    <message>
        <location filename="../../workbench/core/doctor/messages.py" line="105"/>
        <source>the port does not speak TLS: the server answers plain HTTP</source>
        <translation>该端口不支持 TLS：服务器返回的是明文 HTTP</translation>
    </message>
    <message>
        <location filename="../../workbench/core/doctor/messages.py" line="109"/>
        <source>the TLS handshake failed (an old TLS version, or something between you and the server cut it)</source>
        <translation>TLS 握手失败（TLS 版本过旧，或你和服务器之间的设备切断了连接）</translation>
    </message>
    <message>
        <location filename="../../workbench/core/doctor/messages.py" line="113"/>
        <source>use http:// instead of https:// for port {port}</source>
        <translation>端口 {port} 请用 http:// 而不是 https://</translation>
    </message>
    <message>
        <location filename="../../workbench/core/doctor/messages.py" line="117"/>
        <source>check the URL&apos;s scheme and port; try without a proxy or VPN</source>
        <translation>检查 URL 的协议和端口；试试不用代理或 VPN</translation>
    </message>
    <message>
        <location filename="../../workbench/core/doctor/messages.py" line="121"/>
        <source>the proxy URL cannot be used by this client</source>
        <translation>这个客户端无法使用该代理 URL</translation>
    </message>
    <message>
        <location filename="../../workbench/core/doctor/messages.py" line="125"/>
        <source>use an http:// proxy, or set the provider&apos;s proxy to &apos;none&apos;</source>
        <translation>使用 http:// 代理，或把该服务商的代理设为 &apos;none&apos;</translation>
    </message>
    <message>
        <location filename="../../workbench/core/doctor/messages.py" line="129"/>
        <source>the proxy cannot be used</source>
        <translation>无法使用该代理</translation>
    </message>
    <message>
        <location filename="../../workbench/core/doctor/messages.py" line="130"/>
        <source>use an http:// proxy</source>
        <translation>使用 http:// 代理</translation>
    </message>
    <message>
        <location filename="../../workbench/core/doctor/messages.py" line="131"/>
        <source>the server accepted the connection but gave no HTTP answer ({error})</source>
        <translation>服务器接受了连接，但没有返回 HTTP 响应（{error}）</translation>
    </message>
    <message>
        <location filename="../../workbench/core/doctor/messages.py" line="135"/>
        <source>check that the URL&apos;s scheme and port are the API&apos;s; raise the timeout for a slow server; try without a proxy</source>
        <translation>检查 URL 的协议和端口是否属于 API；服务器较慢时提高超时；试试不用代理</translation>
    </message>
    <message>
        <location filename="../../workbench/core/doctor/messages.py" line="355"/>
        <source>skipped: {reason}</source>
        <translation>已跳过：{reason}</translation>
    </message>
    <message>
        <location filename="../../workbench/core/doctor/messages.py" line="356"/>
        <source>no answer ({error})</source>
        <translation>无响应（{error}）</translation>
    </message>
    <message>
        <location filename="../../workbench/core/doctor/messages.py" line="359"/>
        <source>{answer} ({ms} ms)</source>
        <translation>{answer}（{ms} 毫秒）</translation>
    </message>
    <message>
        <location filename="../../workbench/core/doctor/messages.py" line="360"/>
        <source>no usable base URL (see base_url)</source>
        <translation>没有可用的 Base URL（见 base_url）</translation>
    </message>
    <message>
        <location filename="../../workbench/core/doctor/messages.py" line="361"/>
        <source>an earlier check failed</source>
        <translation>前面的检查已失败</translation>
    </message>
    <message>
        <location filename="../../workbench/core/doctor/messages.py" line="362"/>
        <source>&apos;{raw}&apos;</source>
        <translation>&apos;{raw}&apos;</translation>
    </message>
    <message>
        <location filename="../../workbench/core/doctor/messages.py" line="363"/>
        <source>&apos;{raw}&apos; → {url}</source>
        <translation>&apos;{raw}&apos; → {url}</translation>
    </message>
    <message>
        <location filename="../../workbench/core/doctor/messages.py" line="364"/>
        <source> ({notes})</source>
        <translation>（{notes}）</translation>
    </message>
    <message>
        <location filename="../../workbench/core/doctor/messages.py" line="365"/>
        <source>no proxy variables set</source>
        <translation>未设置代理变量</translation>
    </message>
    <message>
        <location filename="../../workbench/core/doctor/messages.py" line="366"/>
        <source>; for this host: {reason}</source>
        <translation>；对该主机：{reason}</translation>
    </message>
    <message>
        <location filename="../../workbench/core/doctor/messages.py" line="367"/>
        <source> (the variables are ignored for this provider)</source>
        <translation>（该服务商忽略这些变量）</translation>
    </message>
    <message>
        <location filename="../../workbench/core/doctor/messages.py" line="370"/>
        <source>the proxy that carries this host&apos;s requests does not answer (proxy)</source>
        <translation>转发该主机请求的代理没有响应（proxy）</translation>
    </message>
    <message>
        <location filename="../../workbench/core/doctor/messages.py" line="373"/>
        <source>proxy {address}</source>
        <translation>代理 {address}</translation>
    </message>
    <message>
        <location filename="../../workbench/core/doctor/messages.py" line="357"/>
        <location filename="../../workbench/core/doctor/messages.py" line="374"/>
        <source>no answer within {seconds} s</source>
        <translation>{seconds} 秒内没有响应</translation>
    </message>
    <message>
        <location filename="../../workbench/core/doctor/messages.py" line="358"/>
        <source>proxy failed: {error}</source>
        <translation>代理失败：{error}</translation>
    </message>
    <message>
        <location filename="../../workbench/core/doctor/messages.py" line="375"/>
        <source>connection refused (nothing listens there)</source>
        <translation>连接被拒绝（那里没有服务在监听）</translation>
    </message>
    <message>
        <location filename="../../workbench/core/doctor/messages.py" line="376"/>
        <source>not a proxy URL like http://host:port</source>
        <translation>不是 http://host:port 这样的代理 URL</translation>
    </message>
    <message>
        <location filename="../../workbench/core/doctor/messages.py" line="377"/>
        <source>plain http: no TLS</source>
        <translation>明文 HTTP：没有 TLS</translation>
    </message>
    <message>
        <location filename="../../workbench/core/doctor/messages.py" line="378"/>
        <source> (the key travels unencrypted to a non-local host)</source>
        <translation>（密钥会以明文发往非本地主机）</translation>
    </message>
    <message>
        <location filename="../../workbench/core/doctor/messages.py" line="381"/>
        <source>TLS runs through the proxy (CONNECT); the HTTP checks cover it</source>
        <translation>TLS 经由代理建立（CONNECT）；HTTP 检查已涵盖它</translation>
    </message>
    <message>
        <location filename="../../workbench/core/doctor/messages.py" line="384"/>
        <source>{host} is an IP address: nothing to look up</source>
        <translation>{host} 是 IP 地址：无需解析</translation>
    </message>
    <message>
        <location filename="../../workbench/core/doctor/messages.py" line="385"/>
        <source>looking up {host}: {problem}</source>
        <translation>解析 {host}：{problem}</translation>
    </message>
    <message>
        <location filename="../../workbench/core/doctor/messages.py" line="386"/>
        <source>{host} does not resolve (dns)</source>
        <translation>{host} 无法解析（dns）</translation>
    </message>
    <message>
        <location filename="../../workbench/core/doctor/messages.py" line="387"/>
        <source>{host} → {addresses} ({ms} ms)</source>
        <translation>{host} → {addresses}（{ms} 毫秒）</translation>
    </message>
    <message>
        <location filename="../../workbench/core/doctor/messages.py" line="388"/>
        <source>connected to {who}{ip} in {ms} ms</source>
        <translation>已连接 {who}{ip}，用时 {ms} 毫秒</translation>
    </message>
    <message>
        <location filename="../../workbench/core/doctor/messages.py" line="389"/>
        <source>connect to {who}{ip}: {why}</source>
        <translation>连接 {who}{ip}：{why}</translation>
    </message>
    <message>
        <location filename="../../workbench/core/doctor/messages.py" line="390"/>
        <source>no TCP connection to {who} (tcp)</source>
        <translation>无法与 {who} 建立 TCP 连接（tcp）</translation>
    </message>
    <message>
        <location filename="../../workbench/core/doctor/messages.py" line="391"/>
        <source>TLS handshake with {host}:{port}: {message}</source>
        <translation>与 {host}:{port} 的 TLS 握手：{message}</translation>
    </message>
    <message>
        <location filename="../../workbench/core/doctor/messages.py" line="392"/>
        <source>the TLS handshake failed (tls)</source>
        <translation>TLS 握手失败（tls）</translation>
    </message>
    <message>
        <location filename="../../workbench/core/doctor/messages.py" line="393"/>
        <source>{version} with {host} in {ms} ms</source>
        <translation>与 {host} 建立 {version}，用时 {ms} 毫秒</translation>
    </message>
    <message>
        <location filename="../../workbench/core/doctor/messages.py" line="394"/>
        <source>; certificate for {name}</source>
        <translation>；证书签发给 {name}</translation>
    </message>
    <message>
        <location filename="../../workbench/core/doctor/messages.py" line="395"/>
        <source>, valid until {date}</source>
        <translation>，有效期至 {date}</translation>
    </message>
    <message>
        <location filename="../../workbench/core/doctor/messages.py" line="396"/>
        <source>; WARNING: certificate verification is OFF for this provider (anyone on the path can read the key)</source>
        <translation>；警告：该服务商的证书验证已关闭（链路上的任何人都能读到密钥）</translation>
    </message>
    <message>
        <location filename="../../workbench/core/doctor/messages.py" line="401"/>
        <source>cannot build an HTTP client: {error}</source>
        <translation>无法创建 HTTP 客户端：{error}</translation>
    </message>
    <message>
        <location filename="../../workbench/core/doctor/messages.py" line="402"/>
        <source>no HTTP client (models_path)</source>
        <translation>没有 HTTP 客户端（models_path）</translation>
    </message>
    <message>
        <location filename="../../workbench/core/doctor/messages.py" line="403"/>
        <source>the base URL does not speak {protocol} (models_path)</source>
        <translation>该 Base URL 不支持 {protocol} 协议（models_path）</translation>
    </message>
    <message>
        <location filename="../../workbench/core/doctor/messages.py" line="406"/>
        <source>{base}: {at_base}; with /v1 added ({alt}): {at_alt}</source>
        <translation>{base}：{at_base}；加上 /v1 后（{alt}）：{at_alt}</translation>
    </message>
    <message>
        <location filename="../../workbench/core/doctor/messages.py" line="409"/>
        <source>{base}: {at_base}; with /v1 removed ({alt}): {at_alt}</source>
        <translation>{base}：{at_base}；去掉 /v1 后（{alt}）：{at_alt}</translation>
    </message>
    <message>
        <location filename="../../workbench/core/doctor/messages.py" line="412"/>
        <source>no HTTP answer (models_path)</source>
        <translation>没有 HTTP 响应（models_path）</translation>
    </message>
    <message>
        <location filename="../../workbench/core/doctor/messages.py" line="413"/>
        <source>no API path answers (models_path)</source>
        <translation>没有任何 API 路径响应（models_path）</translation>
    </message>
    <message>
        <location filename="../../workbench/core/doctor/messages.py" line="414"/>
        <source>cannot tell which path is right ({statuses}); {evidence}</source>
        <translation>无法判断哪个路径正确（{statuses}）；{evidence}</translation>
    </message>
    <message>
        <location filename="../../workbench/core/doctor/messages.py" line="417"/>
        <source>the server refused the key (auth)</source>
        <translation>服务器拒绝了密钥（auth）</translation>
    </message>
    <message>
        <location filename="../../workbench/core/doctor/messages.py" line="418"/>
        <source>no key sent</source>
        <translation>未发送密钥</translation>
    </message>
    <message>
        <location filename="../../workbench/core/doctor/messages.py" line="419"/>
        <source>key sent as a Bearer token</source>
        <translation>密钥以 Bearer 令牌发送</translation>
    </message>
    <message>
        <location filename="../../workbench/core/doctor/messages.py" line="420"/>
        <source>key sent in the {header} header</source>
        <translation>密钥放在 {header} 请求头中发送</translation>
    </message>
    <message>
        <location filename="../../workbench/core/doctor/messages.py" line="421"/>
        <source> (with anthropic-version: {version})</source>
        <translation>（同时发送 anthropic-version: {version}）</translation>
    </message>
    <message>
        <location filename="../../workbench/core/doctor/messages.py" line="422"/>
        <source> (key from {source})</source>
        <translation>（密钥来自{source}）</translation>
    </message>
    <message>
        <location filename="../../workbench/core/doctor/messages.py" line="423"/>
        <source>; {request} → HTTP 400: {message}: the key cannot be judged without the version header</source>
        <translation>；{request} → HTTP 400：{message}：缺少版本请求头，无法判断密钥</translation>
    </message>
    <message>
        <location filename="../../workbench/core/doctor/messages.py" line="427"/>
        <source>; the server&apos;s answer could not be judged</source>
        <translation>；无法判断服务器的响应</translation>
    </message>
    <message>
        <location filename="../../workbench/core/doctor/messages.py" line="428"/>
        <source>; no JSON answer to judge the key by</source>
        <translation>；没有可用来判断密钥的 JSON 响应</translation>
    </message>
    <message>
        <location filename="../../workbench/core/doctor/messages.py" line="429"/>
        <source>; {seen}</source>
        <translation>；{seen}</translation>
    </message>
    <message>
        <location filename="../../workbench/core/doctor/messages.py" line="430"/>
        <source>; {seen}: not refused</source>
        <translation>；{seen}：未被拒绝</translation>
    </message>
    <message>
        <location filename="../../workbench/core/doctor/messages.py" line="431"/>
        <source>; {seen}: cannot tell whether the key is good</source>
        <translation>；{seen}：无法判断密钥是否有效</translation>
    </message>
    <message>
        <location filename="../../workbench/core/doctor/messages.py" line="432"/>
        <source>; {seen}: the server needs no key</source>
        <translation>；{seen}：服务器不需要密钥</translation>
    </message>
    <message>
        <location filename="../../workbench/core/doctor/messages.py" line="433"/>
        <source> (checked with the whitespace and quotes removed)</source>
        <translation>（已去掉空白和引号后检查）</translation>
    </message>
    <message>
        <location filename="../../workbench/core/doctor/messages.py" line="436"/>
        <source>; the answers are those of {gateway}</source>
        <translation>；这些响应来自 {gateway}</translation>
    </message>
    <message>
        <location filename="../../workbench/core/doctor/messages.py" line="437"/>
        <source>a LiteLLM proxy</source>
        <translation>LiteLLM 代理</translation>
    </message>
    <message>
        <location filename="../../workbench/core/doctor/messages.py" line="438"/>
        <source>Azure (API Management)</source>
        <translation>Azure（API 管理）</translation>
    </message>
    <message>
        <location filename="../../workbench/core/doctor/messages.py" line="439"/>
        <source>{gateway} (header {header})</source>
        <translation>{gateway}（响应头 {header}）</translation>
    </message>
    <message>
        <location filename="../../workbench/core/doctor/messages.py" line="440"/>
        <source>a LiteLLM proxy (error &apos;{error}&apos;)</source>
        <translation>LiteLLM 代理（错误 &apos;{error}&apos;）</translation>
    </message>
    <message>
        <location filename="../../workbench/core/doctor/messages.py" line="441"/>
        <source>a {name} gateway (error type &apos;{kind}&apos;)</source>
        <translation>{name} 网关（错误类型 &apos;{kind}&apos;）</translation>
    </message>
    <message>
        <location filename="../../workbench/core/doctor/messages.py" line="442"/>
        <source>{gateway} (host {host})</source>
        <translation>{gateway}（主机 {host}）</translation>
    </message>
    <message>
        <location filename="../../workbench/core/doctor/messages.py" line="443"/>
        <source>the server has no /models list; the streamed request tells whether the model exists</source>
        <translation>服务器没有 /models 列表；由流式请求判断模型是否存在</translation>
    </message>
    <message>
        <location filename="../../workbench/core/doctor/messages.py" line="446"/>
        <source>GET /models did not answer with a list ({outcome})</source>
        <translation>GET /models 没有返回列表（{outcome}）</translation>
    </message>
    <message>
        <location filename="../../workbench/core/doctor/messages.py" line="449"/>
        <source>{count} model(s) listed: {listed} (no --model)</source>
        <translation>列出了 {count} 个模型：{listed}（未指定 --model）</translation>
    </message>
    <message>
        <location filename="../../workbench/core/doctor/messages.py" line="450"/>
        <source>&apos;{model}&apos; is listed ({count} models)</source>
        <translation>&apos;{model}&apos; 在列表中（共 {count} 个模型）</translation>
    </message>
    <message>
        <location filename="../../workbench/core/doctor/messages.py" line="451"/>
        <source>&apos;{model}&apos; is not among the first {count} listed, and the list has more; the streamed request tells</source>
        <translation>&apos;{model}&apos; 不在列出的前 {count} 个模型中，列表还有更多；由流式请求判断</translation>
    </message>
    <message>
        <location filename="../../workbench/core/doctor/messages.py" line="456"/>
        <source>&apos;{model}&apos; is not among the {count} listed: {listed}</source>
        <translation>&apos;{model}&apos; 不在列出的 {count} 个模型中：{listed}</translation>
    </message>
    <message>
        <location filename="../../workbench/core/doctor/messages.py" line="459"/>
        <source>no client (stream)</source>
        <translation>没有客户端（stream）</translation>
    </message>
    <message>
        <location filename="../../workbench/core/doctor/messages.py" line="460"/>
        <source>cannot build the client: {error}</source>
        <translation>无法创建客户端：{error}</translation>
    </message>
    <message>
        <location filename="../../workbench/core/doctor/messages.py" line="461"/>
        <source>no model to ask: pass --model M</source>
        <translation>没有可请求的模型：请传入 --model M</translation>
    </message>
    <message>
        <location filename="../../workbench/core/doctor/messages.py" line="462"/>
        <source>model &apos;{model}&apos;</source>
        <translation>模型 &apos;{model}&apos;</translation>
    </message>
    <message>
        <location filename="../../workbench/core/doctor/messages.py" line="463"/>
        <source> (the first listed; pass --model to choose)</source>
        <translation>（列表中的第一个；用 --model 指定）</translation>
    </message>
    <message>
        <location filename="../../workbench/core/doctor/messages.py" line="464"/>
        <source>&apos;{model}&apos; is not listed, but served: the streamed request got an answer (the server lists {count}: {listed}; some servers list only loaded models)</source>
        <translation>&apos;{model}&apos; 不在列表中，但可以使用：流式请求得到了回答（服务器列出了 {count} 个：{listed}；有些服务器只列出已加载的模型）</translation>
    </message>
    <message>
        <location filename="../../workbench/core/doctor/messages.py" line="469"/>
        <source> (expected with max_tokens={tokens}; in a run it means max_tokens cut the answer)</source>
        <translation>（max_tokens={tokens} 时属正常；在运行中它表示回答被 max_tokens 截断）</translation>
    </message>
    <message>
        <location filename="../../workbench/core/doctor/messages.py" line="473"/>
        <source>first chunk role-only</source>
        <translation>首个块只含角色字段</translation>
    </message>
    <message>
        <location filename="../../workbench/core/doctor/messages.py" line="474"/>
        <source>first event before the text</source>
        <translation>文本之前的首个事件</translation>
    </message>
    <message>
        <location filename="../../workbench/core/doctor/messages.py" line="475"/>
        <source>yes</source>
        <translation>是</translation>
    </message>
    <message>
        <location filename="../../workbench/core/doctor/messages.py" line="476"/>
        <source>no</source>
        <translation>否</translation>
    </message>
    <message>
        <location filename="../../workbench/core/doctor/messages.py" line="477"/>
        <source>{head}; HTTP {status}; TTFT {ttft} ms; {first}: {role_only}; usage: {usage}; reasoning: {reasoning}; finish_reason: {finish}</source>
        <translation>{head}；HTTP {status}；TTFT {ttft} 毫秒；{first}：{role_only}；用量：{usage}；推理内容：{reasoning}；finish_reason：{finish}</translation>
    </message>
    <message>
        <location filename="../../workbench/core/doctor/messages.py" line="482"/>
        <source>absent (token counts will be estimated)</source>
        <translation>缺失（token 数将按估算）</translation>
    </message>
    <message>
        <location filename="../../workbench/core/doctor/messages.py" line="483"/>
        <source>present but made up by the gateway (prompt {prompt}, completion {completion}, yet {events} text events came: the usage was counted by something other than the model&apos;s tokenizer, so runs mark it usage_suspect and time decoding by the events)</source>
        <translation>有，但由网关编造（输入 {prompt}，输出 {completion}，却收到了 {events} 个文本事件：用量不是由模型的分词器统计的，因此运行时会标记为 usage_suspect，并按事件计时解码）</translation>
    </message>
    <message>
        <location filename="../../workbench/core/doctor/messages.py" line="489"/>
        <source>present (prompt {prompt}, completion {completion})</source>
        <translation>有（输入 {prompt}，输出 {completion}）</translation>
    </message>
    <message>
        <location filename="../../workbench/core/doctor/messages.py" line="490"/>
        <source>{head}; {what}</source>
        <translation>{head}；{what}</translation>
    </message>
    <message>
        <location filename="../../workbench/core/doctor/messages.py" line="491"/>
        <source> (we sent anthropic-version: {version})</source>
        <translation>（我们发送了 anthropic-version: {version}）</translation>
    </message>
    <message>
        <location filename="../../workbench/core/doctor/messages.py" line="492"/>
        <source>no streamed request answered and GET /models does not answer 200: nothing to time</source>
        <translation>没有流式请求得到回答，GET /models 也没有返回 200：没有可计时的请求</translation>
    </message>
    <message>
        <location filename="../../workbench/core/doctor/messages.py" line="496"/>
        <source>streamed requests to &apos;{model}&apos;</source>
        <translation>发往 &apos;{model}&apos; 的流式请求</translation>
    </message>
    <message>
        <location filename="../../workbench/core/doctor/messages.py" line="497"/>
        <source>streamed requests to &apos;{model}&apos; and GET /models</source>
        <translation>发往 &apos;{model}&apos; 的流式请求和 GET /models</translation>
    </message>
    <message>
        <location filename="../../workbench/core/doctor/messages.py" line="500"/>
        <source>{timed} failed while timing {count} round trips</source>
        <translation>{timed} 在计时 {count} 次往返时失败</translation>
    </message>
    <message>
        <location filename="../../workbench/core/doctor/messages.py" line="501"/>
        <source>median of {count} streamed requests to &apos;{model}&apos; (max_tokens 1, sent to first event): {ms} ms (method: {method}, as runs measure it)</source>
        <translation>发往 &apos;{model}&apos; 的 {count} 次流式请求的中位数（max_tokens 1，从发送到首个事件）：{ms} 毫秒（方法：{method}，与运行时的测量方式相同）</translation>
    </message>
    <message>
        <location filename="../../workbench/core/doctor/messages.py" line="506"/>
        <source>median of {count} GET /models: {ms} ms (method: models; {why})</source>
        <translation>{count} 次 GET /models 的中位数：{ms} 毫秒（方法：models；{why}）</translation>
    </message>
    <message>
        <location filename="../../workbench/core/doctor/messages.py" line="509"/>
        <source>the {protocol} path gave no event</source>
        <translation>{protocol} 路径没有返回事件</translation>
    </message>
    <message>
        <location filename="../../workbench/core/doctor/messages.py" line="510"/>
        <source>no model answered</source>
        <translation>没有模型作出回答</translation>
    </message>
    <message>
        <location filename="../../workbench/core/doctor/messages.py" line="511"/>
        <source>no HTTP answer to look at</source>
        <translation>没有可查看的 HTTP 响应</translation>
    </message>
    <message>
        <location filename="../../workbench/core/doctor/messages.py" line="512"/>
        <source>no HTML page in {count} answer(s)</source>
        <translation>{count} 个响应中没有 HTML 页面</translation>
    </message>
    <message>
        <location filename="../../workbench/core/doctor/messages.py" line="513"/>
        <source>{request} → HTTP {status} {content_type}</source>
        <translation>{request} → HTTP {status} {content_type}</translation>
    </message>
    <message>
        <location filename="../../workbench/core/doctor/messages.py" line="514"/>
        <source>no content-type</source>
        <translation>无 content-type</translation>
    </message>
    <message>
        <location filename="../../workbench/core/doctor/messages.py" line="515"/>
        <source>, title &apos;{title}&apos;</source>
        <translation>，标题 &apos;{title}&apos;</translation>
    </message>
    <message>
        <location filename="../../workbench/core/doctor/messages.py" line="516"/>
        <source>, starts &apos;{start}&apos;</source>
        <translation>，开头为 &apos;{start}&apos;</translation>
    </message>
    <message>
        <location filename="../../workbench/core/doctor/messages.py" line="517"/>
        <source>, server {server}</source>
        <translation>，服务器 {server}</translation>
    </message>
    <message>
        <location filename="../../workbench/core/doctor/messages.py" line="518"/>
        <source>{count} HTML answers in all</source>
        <translation>共 {count} 个 HTML 响应</translation>
    </message>
    <message>
        <location filename="../../workbench/core/doctor/messages.py" line="519"/>
        <source>streamed request → {message}</source>
        <translation>流式请求 → {message}</translation>
    </message>
    <message>
        <location filename="../../workbench/core/doctor/messages.py" line="520"/>
        <source>no 429, 402 or quota answer in {count} answer(s)</source>
        <translation>{count} 个响应中没有 429、402 或额度不足的响应</translation>
    </message>
    <message>
        <location filename="../../workbench/core/doctor/messages.py" line="521"/>
        <source>{count} answers like this</source>
        <translation>共 {count} 个这样的响应</translation>
    </message>
    <message>
        <location filename="../../workbench/core/doctor/messages.py" line="522"/>
        <source>; Retry-After: {seconds} s</source>
        <translation>；Retry-After：{seconds} 秒</translation>
    </message>
    <message>
        <location filename="../../workbench/core/doctor/messages.py" line="523"/>
        <source>no Retry-After header</source>
        <translation>没有 Retry-After 请求头</translation>
    </message>
    <message>
        <location filename="../../workbench/core/doctor/messages.py" line="70"/>
        <source>the host name {host} does not resolve: a typo in the {url}, or no network / DNS here</source>
        <translation>主机名 {host} 无法解析：{url} 有拼写错误，或本机没有网络 / DNS</translation>
    </message>
    <message>
        <location filename="../../workbench/core/doctor/messages.py" line="74"/>
        <source>proxy URL</source>
        <translation>代理 URL</translation>
    </message>
    <message>
        <location filename="../../workbench/core/doctor/messages.py" line="75"/>
        <source>base URL</source>
        <translation>Base URL</translation>
    </message>
    <message>
        <location filename="../../workbench/core/doctor/messages.py" line="140"/>
        <source>the base URL lacks /v1: this server&apos;s API lives under /v1</source>
        <translation>Base URL 缺少 /v1：该服务器的 API 在 /v1 之下</translation>
    </message>
    <message>
        <location filename="../../workbench/core/doctor/messages.py" line="144"/>
        <source>the base URL has an extra /v1: this server&apos;s API root has no /v1 (the SDK appends /chat/completions to the base URL as given)</source>
        <translation>Base URL 多了 /v1：该服务器的 API 根路径没有 /v1（SDK 会在给定的 Base URL 后加 /chat/completions）</translation>
    </message>
    <message>
        <location filename="../../workbench/core/doctor/messages.py" line="149"/>
        <source>{alt} probably answers, {base} does not</source>
        <translation>{alt} 可能有响应，{base} 没有</translation>
    </message>
    <message>
        <location filename="../../workbench/core/doctor/messages.py" line="153"/>
        <source>{alt} answers, {base} does not</source>
        <translation>{alt} 有响应，{base} 没有</translation>
    </message>
    <message>
        <location filename="../../workbench/core/doctor/messages.py" line="154"/>
        <source>{what}; {answers} (the 404 of a wrong /v1)</source>
        <translation>{what}；{answers}（/v1 错误导致的 404）</translation>
    </message>
    <message>
        <location filename="../../workbench/core/doctor/messages.py" line="158"/>
        <source>neither the base URL nor its /v1 variant answers /models or /chat/completions: the path is wrong, or a web site (HTML) answered instead of the API, or this is not an OpenAI-compatible API</source>
        <translation>Base URL 及其 /v1 变体都不响应 /models 或 /chat/completions：路径错误，或回应的是网站（HTML）而不是 API，或这不是兼容 OpenAI 的 API</translation>
    </message>
    <message>
        <location filename="../../workbench/core/doctor/messages.py" line="164"/>
        <source>neither the base URL nor its /v1 variant answers /models or /chat/completions: the path is wrong, or this is not an OpenAI-compatible API</source>
        <translation>Base URL 及其 /v1 变体都不响应 /models 或 /chat/completions：路径错误，或这不是兼容 OpenAI 的 API</translation>
    </message>
    <message>
        <location filename="../../workbench/core/doctor/messages.py" line="169"/>
        <source>this URL speaks {other}, not {chosen}: POST ...{path} is not there, while POST ...{other_path} answers in its shape</source>
        <translation>此 URL 使用的是 {other}，而不是 {chosen}：POST ...{path} 不存在，而 POST ...{other_path} 以该协议的格式作出了回答</translation>
    </message>
    <message>
        <location filename="../../workbench/core/doctor/messages.py" line="174"/>
        <source>use --protocol {protocol} (or protocol = &quot;{protocol}&quot; for the provider)</source>
        <translation>使用 --protocol {protocol}（或为该服务商设置 protocol = &quot;{protocol}&quot;）</translation>
    </message>
    <message>
        <location filename="../../workbench/core/doctor/messages.py" line="178"/>
        <source>use the API base URL from the provider&apos;s docs (not the web site&apos;s address)</source>
        <translation>使用服务商文档中的 API Base URL（不是网站地址）</translation>
    </message>
    <message>
        <location filename="../../workbench/core/doctor/messages.py" line="182"/>
        <source>the provider&apos;s extra headers set &apos;{header}&apos;, which replaces the key: a leftover OAuth login or an old token is sent instead</source>
        <translation>该服务商的额外请求头设置了 &apos;{header}&apos;，它会替换密钥：发送的是遗留的 OAuth 登录或旧令牌</translation>
    </message>
    <message>
        <location filename="../../workbench/core/doctor/messages.py" line="187"/>
        <source>no key was sent and the server wants one</source>
        <translation>没有发送密钥，而服务器需要密钥</translation>
    </message>
    <message>
        <location filename="../../workbench/core/doctor/messages.py" line="191"/>
        <source>; the key should come from {source}</source>
        <translation>；密钥应来自 {source}</translation>
    </message>
    <message>
        <location filename="../../workbench/core/doctor/messages.py" line="192"/>
        <source>set the key: --api-key-env VAR, or the provider&apos;s key; for an environment variable, export it in this shell (a changed config needs a new terminal or a reloaded window)</source>
        <translation>设置密钥：--api-key-env VAR，或该服务商的密钥；环境变量要在当前 shell 中 export（改过的配置需要新开终端或重新加载窗口）</translation>
    </message>
    <message>
        <location filename="../../workbench/core/doctor/messages.py" line="197"/>
        <source>the server wants the key in the header &apos;{header}&apos;, not in &apos;Authorization: Bearer&apos;</source>
        <translation>服务器要求把密钥放在请求头 &apos;{header}&apos; 中，而不是 &apos;Authorization: Bearer&apos;</translation>
    </message>
    <message>
        <location filename="../../workbench/core/doctor/messages.py" line="201"/>
        <source>the server wants the key in the header &apos;{header}&apos;, not in &apos;{sent}&apos;</source>
        <translation>服务器要求把密钥放在请求头 &apos;{header}&apos; 中，而不是 &apos;{sent}&apos;</translation>
    </message>
    <message>
        <location filename="../../workbench/core/doctor/messages.py" line="205"/>
        <source>the server wants the key as &apos;Authorization: Bearer&apos;, not in the header &apos;{header}&apos;</source>
        <translation>服务器要求以 &apos;Authorization: Bearer&apos; 发送密钥，而不是放在请求头 &apos;{header}&apos; 中</translation>
    </message>
    <message>
        <location filename="../../workbench/core/doctor/messages.py" line="209"/>
        <source>set auth = &quot;bearer&quot; for the provider (a Claude Code ANTHROPIC_AUTH_TOKEN is sent that way)</source>
        <translation>为该服务商设置 auth = &quot;bearer&quot;（Claude Code 的 ANTHROPIC_AUTH_TOKEN 就是这样发送的）</translation>
    </message>
    <message>
        <location filename="../../workbench/core/doctor/messages.py" line="213"/>
        <source>add the header &apos;{header}: &lt;key&gt;&apos; to the provider&apos;s extra headers</source>
        <translation>在该服务商的额外请求头中加入 &apos;{header}: &lt;key&gt;&apos;</translation>
    </message>
    <message>
        <location filename="../../workbench/core/doctor/messages.py" line="217"/>
        <source>remove the &apos;{header}&apos; header from the provider&apos;s extra headers</source>
        <translation>从该服务商的额外请求头中删除 &apos;{header}&apos;</translation>
    </message>
    <message>
        <location filename="../../workbench/core/doctor/messages.py" line="221"/>
        <source>the key was sent and rejected: mistyped, copied incompletely, deleted or expired, or a key of another provider</source>
        <translation>密钥已发送但被拒绝：输错、复制不完整、已删除或过期，或是别家服务商的密钥</translation>
    </message>
    <message>
        <location filename="../../workbench/core/doctor/messages.py" line="226"/>
        <source>; the server mentions the header &apos;{header}&apos;</source>
        <translation>；服务器提到了请求头 &apos;{header}&apos;</translation>
    </message>
    <message>
        <location filename="../../workbench/core/doctor/messages.py" line="230"/>
        <source>copy the key again from the provider&apos;s console (keys show once); check that the variable holds it whole (echo ${VAR:0:6}); if a tool logged in with OAuth before, clear its old login so the key is used</source>
        <translation>从服务商控制台重新复制密钥（密钥只显示一次）；检查变量里的密钥是否完整（echo ${VAR:0:6}）；如果某个工具之前用 OAuth 登录过，清除其旧登录，让密钥生效</translation>
    </message>
    <message>
        <location filename="../../workbench/core/doctor/messages.py" line="236"/>
        <source>the model list is not the OpenAI shape {&quot;data&quot;: [{&quot;id&quot;: ...}]}: the endpoint is not OpenAI-compatible (the &apos;reading choices&apos; kind of error)</source>
        <translation>模型列表不是 OpenAI 的格式 {&quot;data&quot;: [{&quot;id&quot;: ...}]}：该接口不兼容 OpenAI（属于 &apos;reading choices&apos; 一类错误）</translation>
    </message>
    <message>
        <location filename="../../workbench/core/doctor/messages.py" line="241"/>
        <source>check that the base URL is the provider&apos;s OpenAI-compatible one</source>
        <translation>检查 Base URL 是否为服务商的 OpenAI 兼容地址</translation>
    </message>
    <message>
        <location filename="../../workbench/core/protocols/anthropic.py" line="93"/>
        <source>the model list is not the Anthropic shape {&quot;data&quot;: [{&quot;type&quot;: &quot;model&quot;, &quot;id&quot;: ...}], &quot;has_more&quot;: ...}: the endpoint does not speak the Anthropic Messages API</source>
        <translation>模型列表不是 Anthropic 的格式 {&quot;data&quot;: [{&quot;type&quot;: &quot;model&quot;, &quot;id&quot;: ...}], &quot;has_more&quot;: ...}：该端点不支持 Anthropic Messages API</translation>
    </message>
    <message>
        <location filename="../../workbench/core/protocols/anthropic.py" line="98"/>
        <source>check that the base URL is the one the provider gives for Anthropic clients</source>
        <translation>检查 Base URL 是否为服务商为 Anthropic 客户端提供的地址</translation>
    </message>
    <message>
        <location filename="../../workbench/core/doctor/messages.py" line="245"/>
        <source>use &apos;{first}&apos; (or {others}); model ids must match the server&apos;s list exactly</source>
        <translation>使用 &apos;{first}&apos;（或 {others}）；模型 id 必须与服务器列表完全一致</translation>
    </message>
    <message>
        <location filename="../../workbench/core/doctor/messages.py" line="249"/>
        <source>use &apos;{first}&apos;; model ids must match the server&apos;s list exactly</source>
        <translation>使用 &apos;{first}&apos;；模型 id 必须与服务器列表完全一致</translation>
    </message>
    <message>
        <location filename="../../workbench/core/doctor/messages.py" line="253"/>
        <source> (no `choices` with text came back: the &apos;reading choices&apos; error; the endpoint or the model id routes to something not OpenAI-compatible)</source>
        <translation>（没有返回带文本的 `choices`：即 &apos;reading choices&apos; 错误；接口或模型 id 指向了不兼容 OpenAI 的服务）</translation>
    </message>
    <message>
        <location filename="../../workbench/core/doctor/messages.py" line="258"/>
        <source>; even 1 token took over {seconds} s</source>
        <translation>；连 1 个 Token 都超过了 {seconds} 秒</translation>
    </message>
    <message>
        <location filename="../../workbench/core/doctor/messages.py" line="259"/>
        <source>the gateway lists this model, but its upstream refuses it (HTTP {status}): {words}</source>
        <translation>网关列出了这个模型，但其上游拒绝了它（HTTP {status}）：{words}</translation>
    </message>
    <message>
        <location filename="../../workbench/core/doctor/messages.py" line="263"/>
        <source>check the gateway&apos;s route for this model: the upstream&apos;s model id, address and key in the gateway&apos;s configuration, and the upstream&apos;s own logs</source>
        <translation>检查网关中这个模型的路由：网关配置里上游的模型 id、地址和密钥，以及上游自己的日志</translation>
    </message>
    <message>
        <location filename="../../workbench/core/doctor/messages.py" line="268"/>
        <source>the server answered /models once, then failed (flaky server or network)</source>
        <translation>服务器响应了一次 /models，随后失败（服务器或网络不稳定）</translation>
    </message>
    <message>
        <location filename="../../workbench/core/doctor/messages.py" line="272"/>
        <source>the server answered a streamed request once, then failed while it was timed (flaky server or network)</source>
        <translation>服务器响应了一次流式请求，随后在计时中失败（服务器或网络不稳定）</translation>
    </message>
    <message>
        <location filename="../../workbench/core/doctor/messages.py" line="277"/>
        <source>retry; if it repeats, report it to the provider</source>
        <translation>重试；如果反复出现，向服务商反馈</translation>
    </message>
    <message>
        <location filename="../../workbench/core/doctor/messages.py" line="281"/>
        <source>wait {seconds} s (Retry-After), then retry; </source>
        <translation>等待 {seconds} 秒（Retry-After）后重试；</translation>
    </message>
    <message>
        <location filename="../../workbench/core/doctor/messages.py" line="285"/>
        <source>the proxy wants a login (HTTP 407) and answered with its own page</source>
        <translation>代理要求登录（HTTP 407），并返回了它自己的页面</translation>
    </message>
    <message>
        <location filename="../../workbench/core/doctor/messages.py" line="289"/>
        <source>a web page answered with HTTP 200: the base URL points at the web site, not at the API (the &apos;reading choices&apos; error: no JSON `choices` in an HTML page)</source>
        <translation>网页以 HTTP 200 作答：Base URL 指向的是网站而不是 API（即 &apos;reading choices&apos; 错误：HTML 页面里没有 JSON `choices`）</translation>
    </message>
    <message>
        <location filename="../../workbench/core/doctor/messages.py" line="294"/>
        <source>; here a proxy or gateway answered HTTP {codes} with its own error page</source>
        <translation>；这里是代理或网关以 HTTP {codes} 返回了它自己的错误页面</translation>
    </message>
    <message>
        <location filename="../../workbench/core/doctor/messages.py" line="311"/>
        <source>the server&apos;s certificate has expired</source>
        <translation>服务器证书已过期</translation>
    </message>
    <message>
        <location filename="../../workbench/core/doctor/messages.py" line="315"/>
        <source>the certificate is self-signed, not issued by a trusted authority (a lab server, or a corporate proxy that inspects TLS)</source>
        <translation>证书是自签名的，不是受信任机构签发的（实验用服务器，或检查 TLS 的公司代理）</translation>
    </message>
    <message>
        <location filename="../../workbench/core/doctor/messages.py" line="320"/>
        <source>the certificate&apos;s issuer is not trusted here (a missing intermediate certificate, or a corporate root certificate not installed on this machine)</source>
        <translation>本机不信任证书的签发者（缺少中间证书，或本机没有安装公司根证书）</translation>
    </message>
    <message>
        <location filename="../../workbench/core/doctor/messages.py" line="325"/>
        <source>the certificate is for another host name, not {host}</source>
        <translation>证书属于别的主机名，而不是 {host}</translation>
    </message>
    <message>
        <location filename="../../workbench/core/doctor/messages.py" line="329"/>
        <source>the certificate is not valid yet (check this machine&apos;s clock)</source>
        <translation>证书尚未生效（检查本机时钟）</translation>
    </message>
    <message>
        <location filename="../../workbench/core/doctor/messages.py" line="333"/>
        <source>the certificate was refused: {message}</source>
        <translation>证书被拒绝：{message}</translation>
    </message>
    <message>
        <location filename="../../workbench/core/doctor/messages.py" line="334"/>
        <source>store the bare key: no spaces, newline, quotes or &apos;Bearer &apos; around it (export VAR=sk-... ; read files with `tr -d &apos;\n&apos;`)</source>
        <translation>只保存密钥本身：前后不要有空格、换行、引号或 &apos;Bearer &apos;（export VAR=sk-... ；读文件时用 `tr -d &apos;\n&apos;`）</translation>
    </message>
    <message>
        <location filename="../../workbench/core/doctor/messages.py" line="339"/>
        <source>copy the key again, whole, from the provider&apos;s console</source>
        <translation>从服务商控制台重新完整复制密钥</translation>
    </message>
    <message>
        <location filename="../../workbench/core/doctor/messages.py" line="343"/>
        <source>replace the placeholder with your real key</source>
        <translation>把占位文字换成你真正的密钥</translation>
    </message>
    <message>
        <location filename="../../workbench/core/doctor/messages.py" line="347"/>
        <source>remove the Authorization header from the provider&apos;s extra headers</source>
        <translation>从该服务商的额外请求头中删除 Authorization</translation>
    </message>
    <message>
        <location filename="../../workbench/core/doctor/messages.py" line="351"/>
        <source>check the key</source>
        <translation>检查密钥</translation>
    </message>
</context>
<context>
    <name>ErrorClass</name>
    <message>
        <location filename="../../workbench/ui/error_titles.py" line="19"/>
        <source>The server rejected the API key</source>
        <translation>服务器拒绝了 API 密钥</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/error_titles.py" line="20"/>
        <source>Wrong base URL or path (404)</source>
        <translation>Base URL 或路径错误（404）</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/error_titles.py" line="21"/>
        <source>The server does not serve this model</source>
        <translation>服务器上没有这个模型</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/error_titles.py" line="22"/>
        <source>Rate-limited by the provider (429)</source>
        <translation>被服务商限流（429）</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/error_titles.py" line="23"/>
        <source>No quota or balance left</source>
        <translation>额度或余额已用完</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/error_titles.py" line="24"/>
        <source>The server failed (5xx)</source>
        <translation>服务器出错（5xx）</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/error_titles.py" line="25"/>
        <source>The server refused the request</source>
        <translation>服务器拒绝了该请求</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/error_titles.py" line="26"/>
        <source>The server is out of memory for this request</source>
        <translation>服务器内存不足，无法处理此请求</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/error_titles.py" line="27"/>
        <source>An HTML page came back instead of the API</source>
        <translation>返回的是 HTML 页面而不是 API 响应</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/error_titles.py" line="28"/>
        <source>Cannot reach the server</source>
        <translation>无法连接服务器</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/error_titles.py" line="29"/>
        <source>The connection dropped mid-stream</source>
        <translation>流式输出中途连接断开</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/error_titles.py" line="30"/>
        <source>The stream was cut short</source>
        <translation>流被提前截断</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/error_titles.py" line="31"/>
        <source>More output than max_tokens allows</source>
        <translation>输出超出 max_tokens 的上限</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/error_titles.py" line="32"/>
        <source>The server sent more data than allowed</source>
        <translation>服务器发送的数据超出上限</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/error_titles.py" line="33"/>
        <source>The server broke the HTTP protocol</source>
        <translation>服务器违反了 HTTP 协议</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/error_titles.py" line="34"/>
        <source>The server redirects elsewhere</source>
        <translation>服务器重定向到别处</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/error_titles.py" line="35"/>
        <source>The API key cannot be sent</source>
        <translation>API 密钥无法发送</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/error_titles.py" line="36"/>
        <source>The stream sent invalid JSON</source>
        <translation>流中收到无效的 JSON</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/error_titles.py" line="37"/>
        <source>No first token within the time limit</source>
        <translation>首 Token 超时</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/error_titles.py" line="38"/>
        <source>The stream stalled</source>
        <translation>流式输出停滞</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/error_titles.py" line="39"/>
        <source>The request ran past its time limit</source>
        <translation>请求超过总时限</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/error_titles.py" line="40"/>
        <source>The stream ended without any text</source>
        <translation>流结束但没有任何文本</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/error_titles.py" line="41"/>
        <source>Tokens came back, but no visible text</source>
        <translation>返回了 token，但没有可见文本</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/error_titles.py" line="42"/>
        <source>Cancelled</source>
        <translation>已取消</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/error_titles.py" line="43"/>
        <source>Unexpected error inside Attention Workbench</source>
        <translation>Attention Workbench 内部意外错误</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/error_titles.py" line="45"/>
        <source>Request failed</source>
        <translation>请求失败</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/error_titles.py" line="59"/>
        <source>Cause: %1</source>
        <translation>原因：%1</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/error_titles.py" line="60"/>
        <source>Fix: %1</source>
        <translation>解决：%1</translation>
    </message>
</context>
<context>
    <name>ErrorFix</name>
    <message>
        <location filename="../../workbench/core/foundation/error_messages.py" line="336"/>
        <source>the calibration request failed first; a gateway (LiteLLM, say) that sees a deployment fail puts it in cooldown and answers 429 &apos;No deployments available&apos; until the cooldown ends, so this 429 follows that failure and is no sign of too many requests</source>
        <translation>校准请求先失败了；网关（例如 LiteLLM）看到某个部署失败后会让它进入冷却，并在冷却结束前对所有请求回答 429“No deployments available”，所以这个 429 是那次失败的后果，并不表示请求过多</translation>
    </message>
    <message>
        <location filename="../../workbench/core/foundation/error_messages.py" line="13"/>
        <source>the server rejected the API key (missing, mistyped, expired, or with stray whitespace)</source>
        <translation>服务器拒绝了 API 密钥（缺失、输错、已过期，或带有多余的空格）</translation>
    </message>
    <message>
        <location filename="../../workbench/core/foundation/error_messages.py" line="18"/>
        <source>check the key (no spaces or quotes around it), that its environment variable is set in this shell, and that the header is &apos;Authorization: Bearer &lt;key&gt;&apos;; run `workbench doctor`</source>
        <translation>检查密钥（前后不要有空格或引号）、它的环境变量在当前 shell 中已设置，以及请求头为 &apos;Authorization: Bearer &lt;key&gt;&apos;；运行 `workbench doctor`</translation>
    </message>
    <message>
        <location filename="../../workbench/core/foundation/error_messages.py" line="26"/>
        <source>the path does not exist on this server: usually a base URL with a missing or extra /v1, or a full .../chat/completions URL pasted as the base URL</source>
        <translation>服务器上没有这个路径：通常是 Base URL 少了或多了 /v1，或者把完整的 .../chat/completions 地址当成了 Base URL</translation>
    </message>
    <message>
        <location filename="../../workbench/core/foundation/error_messages.py" line="31"/>
        <source>use the base URL the provider documents (try with and without /v1); `workbench doctor --base-url URL` tries both</source>
        <translation>使用服务商文档中的 Base URL（带和不带 /v1 都试试）；`workbench doctor --base-url URL` 会两种都试</translation>
    </message>
    <message>
        <location filename="../../workbench/core/foundation/error_messages.py" line="38"/>
        <source>the server does not serve a model with this id</source>
        <translation>服务器上没有这个 id 的模型</translation>
    </message>
    <message>
        <location filename="../../workbench/core/foundation/error_messages.py" line="42"/>
        <source>pick an id from `workbench models --base-url URL` (ids are usually lower-case with hyphens)</source>
        <translation>从 `workbench models --base-url URL` 的列表中选择 id（id 通常是小写加连字符）</translation>
    </message>
    <message>
        <location filename="../../workbench/core/foundation/error_messages.py" line="49"/>
        <source>the provider is rate-limiting this key (too many requests or tokens per minute)</source>
        <translation>服务商正在对这个密钥限流（每分钟请求数或 Token 数过多）</translation>
    </message>
    <message>
        <location filename="../../workbench/core/foundation/error_messages.py" line="53"/>
        <source>lower the concurrency, wait for Retry-After, or ask the provider for a higher limit</source>
        <translation>降低并发、按 Retry-After 等待，或向服务商申请更高的限额</translation>
    </message>
    <message>
        <location filename="../../workbench/core/foundation/error_messages.py" line="59"/>
        <source>the account has no quota or balance left</source>
        <translation>账户的额度或余额已用完</translation>
    </message>
    <message>
        <location filename="../../workbench/core/foundation/error_messages.py" line="63"/>
        <source>top up or check the plan in the provider&apos;s console</source>
        <translation>充值，或在服务商控制台检查套餐</translation>
    </message>
    <message>
        <location filename="../../workbench/core/foundation/error_messages.py" line="69"/>
        <source>the server failed while handling the request</source>
        <translation>服务器处理请求时出错</translation>
    </message>
    <message>
        <location filename="../../workbench/core/foundation/error_messages.py" line="73"/>
        <source>retry later; if it persists, report it to the provider with the time and model</source>
        <translation>稍后重试；如果持续出现，带上时间和模型向服务商反馈</translation>
    </message>
    <message>
        <location filename="../../workbench/core/foundation/error_messages.py" line="79"/>
        <source>the server refused the request as sent</source>
        <translation>服务器拒绝了发送的请求</translation>
    </message>
    <message>
        <location filename="../../workbench/core/foundation/error_messages.py" line="83"/>
        <source>read the server&apos;s message: often the prompt exceeds the model&apos;s context window, or max_tokens is too large</source>
        <translation>阅读服务器返回的信息：常见原因是提示词超出模型的上下文窗口，或 max_tokens 过大</translation>
    </message>
    <message>
        <location filename="../../workbench/core/foundation/error_messages.py" line="90"/>
        <source>the server has no memory left for this request: its KV cache, beside the model&apos;s weights and the other requests in flight, does not fit on the GPU</source>
        <translation>服务器没有足够的内存处理此请求：它的 KV 缓存加上模型权重和其他进行中的请求，超出了 GPU 显存</translation>
    </message>
    <message>
        <location filename="../../workbench/core/foundation/error_messages.py" line="95"/>
        <source>use a shorter prompt, a lower max_tokens or fewer requests at once, or a deployment with more memory per device (a higher tensor-parallel degree)</source>
        <translation>使用更短的提示词、更小的 max_tokens 或更少的并发请求，或换用每张卡显存更多的部署（更高的张量并行度）</translation>
    </message>
    <message>
        <location filename="../../workbench/core/foundation/error_messages.py" line="102"/>
        <source>an HTML page came back where JSON or a stream was expected: a proxy, gateway login page, or a web site answered instead of the API</source>
        <translation>本应返回 JSON 或流，却返回了 HTML 页面：回应的是代理、网关登录页或网站，而不是 API</translation>
    </message>
    <message>
        <location filename="../../workbench/core/foundation/error_messages.py" line="107"/>
        <source>check the base URL points at the API (not the web site), and the proxy settings</source>
        <translation>检查 Base URL 指向的是 API（而不是网站），以及代理设置</translation>
    </message>
    <message>
        <location filename="../../workbench/core/foundation/error_messages.py" line="113"/>
        <source>the server could not be reached (DNS, TCP, TLS or proxy)</source>
        <translation>无法连接服务器（DNS、TCP、TLS 或代理）</translation>
    </message>
    <message>
        <location filename="../../workbench/core/foundation/error_messages.py" line="117"/>
        <source>check the host and port, that the server is running, and HTTP(S)_PROXY / NO_PROXY; a local server must not go through a global proxy</source>
        <translation>检查主机和端口、服务器是否在运行，以及 HTTP(S)_PROXY / NO_PROXY；本地服务器不能走全局代理</translation>
    </message>
    <message>
        <location filename="../../workbench/core/foundation/error_messages.py" line="124"/>
        <source>the connection closed before the stream finished</source>
        <translation>流式输出结束前连接就断开了</translation>
    </message>
    <message>
        <location filename="../../workbench/core/foundation/error_messages.py" line="128"/>
        <source>retry; if it repeats, a proxy or load balancer may cut long streams (check its timeouts)</source>
        <translation>重试；如果反复出现，可能是代理或负载均衡器切断了长连接（检查其超时设置）</translation>
    </message>
    <message>
        <location filename="../../workbench/core/foundation/error_messages.py" line="135"/>
        <source>the stream ended without [DONE] and without a finish_reason: the server or a proxy cut it short, so the answer and its token counts are incomplete</source>
        <translation>流结束时既没有 [DONE] 也没有 finish_reason：服务器或代理把它提前截断了，回答和 token 数都不完整</translation>
    </message>
    <message>
        <location filename="../../workbench/core/foundation/error_messages.py" line="140"/>
        <source>retry; if it repeats, check the timeouts of any proxy or load balancer on the way and the server&apos;s logs (the row is kept but never enters the figures)</source>
        <translation>重试；若反复出现，检查途经的代理或负载均衡器的超时设置以及服务器日志（该行会保留，但不计入统计数字）</translation>
    </message>
    <message>
        <location filename="../../workbench/core/foundation/error_messages.py" line="147"/>
        <source>the server sent more output than max_tokens allows (it ignores max_tokens, or the stream never ends); the client stopped reading at once</source>
        <translation>服务器发送的输出超出 max_tokens 允许的量（它忽略了 max_tokens，或者流永不结束）；客户端已立即停止读取</translation>
    </message>
    <message>
        <location filename="../../workbench/core/foundation/error_messages.py" line="152"/>
        <source>check that the server or gateway honours max_tokens, and report it to the provider; such a stream cannot be compared with others</source>
        <translation>确认服务器或网关遵守 max_tokens，并向服务商报告；这样的流无法与其他结果比较</translation>
    </message>
    <message>
        <location filename="../../workbench/core/foundation/error_messages.py" line="159"/>
        <source>the server sent a line, an event or a body larger than the client accepts; the client stopped reading to keep its memory bounded</source>
        <translation>服务器发送的一行、一个事件或整个响应体超出客户端接受的大小；客户端已停止读取，以限制内存占用</translation>
    </message>
    <message>
        <location filename="../../workbench/core/foundation/error_messages.py" line="164"/>
        <source>check that the base URL is an OpenAI-compatible API and that no proxy rewrites the stream; report it to the provider</source>
        <translation>确认 Base URL 指向 OpenAI 兼容的 API，且没有代理改写数据流；并向服务商报告</translation>
    </message>
    <message>
        <location filename="../../workbench/core/foundation/error_messages.py" line="171"/>
        <source>the server or a proxy broke the HTTP protocol (bad chunked encoding, a header line too long, too many headers)</source>
        <translation>服务器或代理违反了 HTTP 协议（分块编码错误、头部行过长或头部过多）</translation>
    </message>
    <message>
        <location filename="../../workbench/core/foundation/error_messages.py" line="176"/>
        <source>try without the proxy; if it persists, report it to the provider with the time</source>
        <translation>不经代理再试；若仍然出现，请附上时间向服务商报告</translation>
    </message>
    <message>
        <location filename="../../workbench/core/foundation/error_messages.py" line="182"/>
        <source>the server answered with a redirect; a request is never re-sent to another address, because that can turn a POST into a GET or send the key elsewhere</source>
        <translation>服务器返回了重定向；请求绝不会被重新发往另一个地址，因为这可能把 POST 变成 GET，或把密钥发到别处</translation>
    </message>
    <message>
        <location filename="../../workbench/core/foundation/error_messages.py" line="187"/>
        <source>use the new address (named in the message) as the base URL; `workbench doctor --base-url URL` checks it</source>
        <translation>把新地址（见消息中）用作 Base URL；可用 `workbench doctor --base-url URL` 检查</translation>
    </message>
    <message>
        <location filename="../../workbench/core/foundation/error_messages.py" line="194"/>
        <source>the API key or a custom header contains characters HTTP headers cannot carry (a line break, or a non-ASCII character such as a full-width space or a curly quote)</source>
        <translation>API 密钥或自定义头部含有 HTTP 头部无法承载的字符（换行符，或全角空格、弯引号等非 ASCII 字符）</translation>
    </message>
    <message>
        <location filename="../../workbench/core/foundation/error_messages.py" line="199"/>
        <source>copy the key again as plain text, with no quotes, spaces or line breaks, and set it again; nothing was sent</source>
        <translation>以纯文本重新复制密钥（不带引号、空格或换行）并重新设置；本次没有发送任何请求</translation>
    </message>
    <message>
        <location filename="../../workbench/core/foundation/error_messages.py" line="206"/>
        <source>the server sent a stream event that is not valid JSON or not shaped like a chat completion chunk</source>
        <translation>服务器发送的流事件不是有效的 JSON，或不符合 chat completion 数据块的格式</translation>
    </message>
    <message>
        <location filename="../../workbench/core/foundation/error_messages.py" line="211"/>
        <source>the endpoint is not fully OpenAI-compatible, or a proxy altered the stream; try without the proxy or report it to the provider</source>
        <translation>该接口不完全兼容 OpenAI，或代理改动了流；不经代理再试，或向服务商反馈</translation>
    </message>
    <message>
        <location filename="../../workbench/core/foundation/error_messages.py" line="218"/>
        <source>no token arrived within the first-token limit (long prompts take long to prefill)</source>
        <translation>在首 Token 时限内没有收到任何 Token（长提示词的预填充耗时较长）</translation>
    </message>
    <message>
        <location filename="../../workbench/core/foundation/error_messages.py" line="222"/>
        <source>raise the first-token timeout, or use a shorter prompt</source>
        <translation>提高首 Token 超时，或使用更短的提示词</translation>
    </message>
    <message>
        <location filename="../../workbench/core/foundation/error_messages.py" line="228"/>
        <source>the stream stalled: no token for longer than the stall limit</source>
        <translation>流式输出停滞：超过停滞时限没有新 Token</translation>
    </message>
    <message>
        <location filename="../../workbench/core/foundation/error_messages.py" line="232"/>
        <source>retry; raise the stall timeout if the server is known to pause</source>
        <translation>重试；如果已知服务器会暂停，提高停滞超时</translation>
    </message>
    <message>
        <location filename="../../workbench/core/foundation/error_messages.py" line="238"/>
        <source>the request ran past its total time limit</source>
        <translation>请求超过了总时限</translation>
    </message>
    <message>
        <location filename="../../workbench/core/foundation/error_messages.py" line="242"/>
        <source>raise the total timeout or lower max_tokens</source>
        <translation>提高总超时，或降低 max_tokens</translation>
    </message>
    <message>
        <location filename="../../workbench/core/foundation/error_messages.py" line="248"/>
        <source>the stream ended without any text</source>
        <translation>流结束了，但没有任何文本</translation>
    </message>
    <message>
        <location filename="../../workbench/core/foundation/error_messages.py" line="252"/>
        <source>check the model id and max_tokens; run `workbench doctor` to see the raw answer</source>
        <translation>检查模型 id 和 max_tokens；运行 `workbench doctor` 查看原始响应</translation>
    </message>
    <message>
        <location filename="../../workbench/core/foundation/error_messages.py" line="258"/>
        <source>the model generated tokens but none of them is visible text: special tokens the server does not decode, or a character cut in the middle of its UTF-8 bytes</source>
        <translation>模型生成了 token，但没有一个是可见文本：服务器未解码的特殊 token，或在 UTF-8 字节中间被截断的字符</translation>
    </message>
    <message>
        <location filename="../../workbench/core/foundation/error_messages.py" line="263"/>
        <source>check the model&apos;s chat template and tokenizer on the server (does it stop at or print its end-of-turn token?); raise max_tokens if finish_reason is length</source>
        <translation>检查服务器上该模型的对话模板（chat template）和分词器（它是否在结束标记处停止，或把结束标记输出？）；若 finish_reason 为 length，请调高 max_tokens</translation>
    </message>
    <message>
        <location filename="../../workbench/core/foundation/error_messages.py" line="270"/>
        <source>the request was cancelled</source>
        <translation>请求已取消</translation>
    </message>
    <message>
        <location filename="../../workbench/core/foundation/error_messages.py" line="274"/>
        <source>nothing to fix</source>
        <translation>无需处理</translation>
    </message>
    <message>
        <location filename="../../workbench/core/foundation/error_messages.py" line="280"/>
        <source>the client worker process (or cluster node) that ran this request died before the request finished</source>
        <translation>运行此请求的客户端工作进程（或集群节点）在请求完成前已终止</translation>
    </message>
    <message>
        <location filename="../../workbench/core/foundation/error_messages.py" line="285"/>
        <source>check the machine&apos;s memory and the worker&apos;s logs, then run again; --workers 1 runs everything in one process</source>
        <translation>检查该机器的内存和工作进程的日志，然后重新运行；--workers 1 会在单个进程中运行全部请求</translation>
    </message>
    <message>
        <location filename="../../workbench/core/foundation/error_messages.py" line="292"/>
        <source>an unexpected error inside Attention Workbench</source>
        <translation>Attention Workbench 内部出现意外错误</translation>
    </message>
    <message>
        <location filename="../../workbench/core/foundation/error_messages.py" line="296"/>
        <source>please report it with the message</source>
        <translation>请带上这条信息反馈给我们</translation>
    </message>
    <message>
        <location filename="../../workbench/core/foundation/error_messages.py" line="303"/>
        <source>the server refused the key: its answer speaks of the key or of access, though its status is not 401 (gateways such as a LiteLLM proxy without a database answer a bad key with 400), or it refused even the model list</source>
        <translation>服务器拒绝了密钥：它的回答说到密钥或访问权限，尽管状态码不是 401（例如没有数据库的 LiteLLM 代理对错误的密钥回答 400），或者它连模型列表都拒绝了</translation>
    </message>
    <message>
        <location filename="../../workbench/core/foundation/error_messages.py" line="309"/>
        <source>check the key for this gateway (the gateway&apos;s own key, not the upstream provider&apos;s; no spaces or quotes around it); run `workbench doctor --base-url URL`</source>
        <translation>检查这个网关的密钥（网关自己的密钥，而不是上游服务商的；前后不要有空格或引号）；运行 `workbench doctor --base-url URL`</translation>
    </message>
    <message>
        <location filename="../../workbench/core/foundation/error_messages.py" line="314"/>
        <source>the gateway took the request, but the upstream it routes this model to refused it (the message carries the upstream&apos;s words): the gateway&apos;s route for this model is broken</source>
        <translation>网关接受了请求，但它为这个模型路由到的上游拒绝了它（消息里带着上游的原话）：网关中这个模型的路由坏了</translation>
    </message>
    <message>
        <location filename="../../workbench/core/foundation/error_messages.py" line="319"/>
        <source>check the gateway&apos;s route for this model: the upstream&apos;s model id, address and key in the gateway&apos;s configuration, and the upstream&apos;s own logs</source>
        <translation>检查网关中这个模型的路由：网关配置里上游的模型 id、地址和密钥，以及上游自己的日志</translation>
    </message>
    <message>
        <location filename="../../workbench/core/foundation/error_messages.py" line="324"/>
        <source>the gateway refused the request itself: its upstream for this model failed a moment ago (an error or a rate limit), so the gateway sends it nothing until a cooldown ends</source>
        <translation>请求被网关自己拒绝：这个模型的上游刚刚出错（报错或限流），冷却期结束前网关不再向它发送请求</translation>
    </message>
    <message>
        <location filename="../../workbench/core/foundation/error_messages.py" line="329"/>
        <source>find out why the upstream failed: the first request it refused carries the upstream&apos;s words (`workbench bench` prints every failure), and `workbench doctor --model M` shows them once the cooldown ends; check the gateway&apos;s route for this model and its logs</source>
        <translation>查明上游为何出错：被拒绝的第一个请求带着上游的原话（`workbench bench` 会打印每个失败），冷却期结束后 `workbench doctor --model M` 也会显示；检查网关中这个模型的路由和网关日志</translation>
    </message>
    <message>
        <location filename="../../workbench/core/protocols/responses.py" line="30"/>
        <source>this base URL does not speak the OpenAI Responses API (POST .../responses is not there): many servers speak only chat completions</source>
        <translation>这个 base URL 不支持 OpenAI Responses API（没有 POST .../responses）：很多服务只支持 chat completions</translation>
    </message>
    <message>
        <location filename="../../workbench/core/protocols/responses.py" line="35"/>
        <source>try --protocol chat (or protocol = &quot;chat&quot; for the provider)</source>
        <translation>试试 --protocol chat（或给该 provider 设 protocol = &quot;chat&quot;）</translation>
    </message>
    <message>
        <location filename="../../workbench/core/protocols/responses.py" line="43"/>
        <source>this base URL answers POST .../responses in OpenAI&apos;s shape: it speaks OpenAI Responses</source>
        <translation>这个 base URL 以 OpenAI 的格式响应 POST .../responses：它支持 OpenAI Responses</translation>
    </message>
    <message>
        <location filename="../../workbench/core/protocols/responses.py" line="47"/>
        <source>POST .../responses answers at this base URL: use --protocol responses (or protocol = &quot;responses&quot; for the provider)</source>
        <translation>这个 base URL 上的 POST .../responses 有响应：请使用 --protocol responses（或给该 provider 设 protocol = &quot;responses&quot;）</translation>
    </message>
    <message>
        <location filename="../../workbench/core/protocols/chat.py" line="21"/>
        <source>this base URL answers in the Anthropic Messages API&apos;s shape and has no /chat/completions: it speaks the Anthropic protocol, not chat completions</source>
        <translation>这个 base URL 以 Anthropic Messages API 的格式应答，且没有 /chat/completions：它说的是 Anthropic 协议，不是 chat completions</translation>
    </message>
    <message>
        <location filename="../../workbench/core/protocols/chat.py" line="26"/>
        <source>try --protocol anthropic (or protocol = &quot;anthropic&quot; for the provider)</source>
        <translation>试试 --protocol anthropic（或给该 provider 设 protocol = &quot;anthropic&quot;）</translation>
    </message>
    <message>
        <location filename="../../workbench/core/protocols/chat.py" line="34"/>
        <source>this base URL answers POST .../chat/completions in OpenAI&apos;s shape: it speaks chat completions</source>
        <translation>这个 base URL 以 OpenAI 的格式响应 POST .../chat/completions：它支持聊天补全</translation>
    </message>
    <message>
        <location filename="../../workbench/core/protocols/chat.py" line="39"/>
        <source>POST .../chat/completions answers at this base URL: use --protocol chat (or protocol = &quot;chat&quot; for the provider)</source>
        <translation>这个 base URL 上的 POST .../chat/completions 有响应：请使用 --protocol chat（或给该 provider 设 protocol = &quot;chat&quot;）</translation>
    </message>
    <message>
        <location filename="../../workbench/core/protocols/anthropic.py" line="42"/>
        <source>this base URL does not speak the Anthropic Messages API: POST .../v1/messages is not there (a base URL without /v1 gets it added, as Anthropic&apos;s SDK does)</source>
        <translation>这个 base URL 不支持 Anthropic Messages API：没有 POST .../v1/messages（不带 /v1 的 base URL 会像 Anthropic 的 SDK 那样补上 /v1）</translation>
    </message>
    <message>
        <location filename="../../workbench/core/protocols/anthropic.py" line="47"/>
        <source>run `workbench doctor --base-url URL --protocol anthropic`: it tries the other protocols&apos; paths and names the one this URL speaks; if that is chat, use --protocol chat (or protocol = &quot;chat&quot; for the provider)</source>
        <translation>运行 `workbench doctor --base-url URL --protocol anthropic`：它会探测其他协议的路径，并指出这个 URL 支持哪一种；如果是 chat，请使用 --protocol chat（或给该 provider 设 protocol = &quot;chat&quot;）</translation>
    </message>
    <message>
        <location filename="../../workbench/core/protocols/anthropic.py" line="55"/>
        <source>the server wants the anthropic-version header, which the request lacked or gave a value it does not accept</source>
        <translation>服务器要求 anthropic-version 请求头，而请求没有带它，或带的值服务器不接受</translation>
    </message>
    <message>
        <location filename="../../workbench/core/protocols/anthropic.py" line="60"/>
        <source>the workbench sends anthropic-version: 2023-06-01 unless the provider&apos;s headers set it; remove a wrong anthropic-version from the provider&apos;s headers, or set the one the server documents (headers = { anthropic-version = &quot;2023-06-01&quot; })</source>
        <translation>除非 provider 的 headers 另有设置，workbench 会发送 anthropic-version: 2023-06-01；请从 provider 的 headers 中删掉错误的 anthropic-version，或设成服务器文档要求的值（headers = { anthropic-version = &quot;2023-06-01&quot; }）</translation>
    </message>
    <message>
        <location filename="../../workbench/core/protocols/anthropic.py" line="70"/>
        <source>this base URL answers POST .../v1/messages in Anthropic&apos;s shape: it speaks Anthropic Messages</source>
        <translation>这个 base URL 以 Anthropic 的格式响应 POST .../v1/messages：它支持 Anthropic Messages</translation>
    </message>
    <message>
        <location filename="../../workbench/core/protocols/anthropic.py" line="75"/>
        <source>POST .../v1/messages answers at this base URL: use --protocol anthropic (or protocol = &quot;anthropic&quot; for the provider)</source>
        <translation>这个 base URL 上的 POST .../v1/messages 有响应：请使用 --protocol anthropic（或给该 provider 设 protocol = &quot;anthropic&quot;）</translation>
    </message>
</context>
<context>
    <name>HistoryView</name>
    <message>
        <location filename="../../workbench/ui/history_view.py" line="203"/>
        <source>%1, imported from %2</source>
        <translation>%1，导入自 %2</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/history_view.py" line="155"/>
        <source>Import…</source>
        <translation>导入…</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/history_view.py" line="164"/>
        <source>Add result files of vLLM (bench serve --save-result), guidellm (benchmarks.json) or AIPerf / GenAI-Perf (profile_export) to the history</source>
        <translation>把 vLLM（`vllm bench serve --save-result`）、guidellm（benchmarks.json）或 AIPerf / GenAI-Perf（profile_export）的结果文件加入历史记录</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/history_view.py" line="156"/>
        <location filename="../../workbench/ui/history_view.py" line="168"/>
        <source>Import result files</source>
        <translation>导入结果文件</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/history_view.py" line="158"/>
        <source>Result files (*.json *.jsonl *.yaml *.yml)</source>
        <translation>结果文件 (*.json *.jsonl *.yaml *.yml)</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/history_view.py" line="158"/>
        <source>All files (*)</source>
        <translation>所有文件 (*)</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/history_view.py" line="151"/>
        <source>Delete…</source>
        <translation>删除…</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/history_view.py" line="153"/>
        <source>Remove the selected run and its requests from the history, after asking</source>
        <translation>确认后从历史记录中删除所选运行及其请求</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/history_view.py" line="239"/>
        <source>Delete run</source>
        <translation>删除运行</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/history_view.py" line="240"/>
        <source>Delete this run and its %1 request(s) from the history?
%2</source>
        <translation>从历史记录中删除此运行及其 %1 个请求？
%2</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/history_view.py" line="256"/>
        <source>Run deleted from the history.</source>
        <translation>已从历史记录中删除该运行。</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/history_view.py" line="264"/>
        <source>No run history is open: nothing can be imported.</source>
        <translation>没有打开运行历史：无法导入。</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/history_view.py" line="266"/>
        <source>Importing %1 file(s)…</source>
        <translation>正在导入 %1 个文件…</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/history_view.py" line="306"/>
        <source>Imported %1 run(s), %2 already in the history.</source>
        <translation>已导入 %1 次运行，%2 次已在历史记录中。</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/history_view.py" line="49"/>
        <source>when</source>
        <translation>时间</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/history_view.py" line="50"/>
        <source>kind</source>
        <translation>类型</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/history_view.py" line="51"/>
        <source>status</source>
        <translation>状态</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/history_view.py" line="52"/>
        <source>models</source>
        <translation>模型</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/history_view.py" line="53"/>
        <source>prompt</source>
        <translation>提示长度</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/history_view.py" line="54"/>
        <source>measured</source>
        <translation>测量请求</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/history_view.py" line="55"/>
        <source>failed</source>
        <translation>失败</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/history_view.py" line="56"/>
        <source>stopped</source>
        <translation>已停止</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/history_view.py" line="57"/>
        <source>calibration / warm-up</source>
        <translation>校准 / 预热</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/history_view.py" line="59"/>
        <source>file&apos;s TTFT median ms</source>
        <translation>文件的 TTFT 中位数 ms</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/history_view.py" line="62"/>
        <source>comparison</source>
        <translation>对比</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/history_view.py" line="63"/>
        <source>sweep</source>
        <translation>扫描</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/history_view.py" line="64"/>
        <source>replay</source>
        <translation>回放</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/history_view.py" line="145"/>
        <source>Run history</source>
        <translation>运行历史</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/history_view.py" line="147"/>
        <source>Open results</source>
        <translation>打开结果</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/history_view.py" line="148"/>
        <source>Replay in panes</source>
        <translation>在窗格中回放</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/history_view.py" line="150"/>
        <source>Refresh</source>
        <translation>刷新</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/history_view.py" line="149"/>
        <source>speed</source>
        <translation>速度</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/history_view.py" line="188"/>
        <source>Requests that measured each model&apos;s tokenizer or warmed it up: sent (and billed on a paid endpoint), but not part of the results</source>
        <translation>用于测定各模型分词器或预热的请求：已发送（付费端点会计费），但不计入结果</translation>
    </message>
</context>
<context>
    <name>ImportPreviewDialog</name>
    <message>
        <location filename="../../workbench/ui/import_preview.py" line="40"/>
        <source>Import providers</source>
        <translation>导入服务商</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/import_preview.py" line="54"/>
        <source>Nothing is saved until you press Save. Keys are never written to a file: they stay environment-variable references or go to the OS keyring.</source>
        <translation>点击“保存”前不会保存任何内容。密钥绝不会写入文件：它们保持为环境变量引用，或存入系统密钥环。</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/import_preview.py" line="67"/>
        <source>Found: %1 (%2)</source>
        <translation>发现：%1（%2）</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/import_preview.py" line="69"/>
        <source>  read %1 (%2)</source>
        <translation>  已读取 %1（%2）</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/import_preview.py" line="81"/>
        <source>  key       from %1</source>
        <translation>  密钥       来自 %1</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/import_preview.py" line="88"/>
        <source>Keyring: %1</source>
        <translation>密钥环：%1</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/import_preview.py" line="93"/>
        <source>Warnings:</source>
        <translation>警告：</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/import_preview.py" line="96"/>
        <source>Nothing new: these providers are already saved.</source>
        <translation>没有新内容：这些服务商均已保存。</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/import_preview.py" line="102"/>
        <source>new</source>
        <translation>新增</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/import_preview.py" line="103"/>
        <source>update</source>
        <translation>更新</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/import_preview.py" line="104"/>
        <source>unchanged</source>
        <translation>不变</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/import_preview.py" line="108"/>
        <source>  base URL  %1</source>
        <translation>  Base URL  %1</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/import_preview.py" line="111"/>
        <source>            note: %1</source>
        <translation>            注：%1</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/import_preview.py" line="113"/>
        <source>  models    (none in the file)</source>
        <translation>  模型      （文件中没有）</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/import_preview.py" line="118"/>
        <source>  model     %1  %2, %3 ctx</source>
        <translation>  模型      %1  %2，上下文 %3</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/import_preview.py" line="124"/>
        <source>  headers   %1</source>
        <translation>  请求头    %1</translation>
    </message>
</context>
<context>
    <name>InstanceGuard</name>
    <message>
        <location filename="../../workbench/ui/single_instance.py" line="177"/>
        <source>Out of file descriptors: the single-instance socket was lost and is being re-created (see the log; raise `ulimit -n`).</source>
        <translation>文件描述符已用尽：单实例套接字丢失，正在重新创建（详见日志；请调高 `ulimit -n`）。</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/single_instance.py" line="181"/>
        <source>The single-instance socket file was deleted; it is being re-created.</source>
        <translation>单实例套接字文件已被删除，正在重新创建。</translation>
    </message>
</context>
<context>
    <name>KernelCharts</name>
    <message>
        <location filename="../../workbench/ui/kernel_charts.py" line="117"/>
        <source>KV length (tokens)</source>
        <translation>KV 长度（Token）</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/kernel_charts.py" line="126"/>
        <source>µs (log)</source>
        <translation>µs（对数）</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/kernel_charts.py" line="118"/>
        <source>GB/s (log)</source>
        <translation>GB/s（对数）</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/kernel_charts.py" line="112"/>
        <source>KV cache bytes per token (one layer)</source>
        <translation>每 Token KV 缓存字节数（单层）</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/kernel_charts.py" line="119"/>
        <source>bytes</source>
        <translation>字节</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/kernel_charts.py" line="98"/>
        <source> — CPU (wall-clock)</source>
        <translation> — CPU（墙钟时间）</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/kernel_charts.py" line="104"/>
        <source>Latency per decode step%1</source>
        <translation>每步解码延迟%1</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/kernel_charts.py" line="122"/>
        <source>shapes: %1</source>
        <translation>形状：%1</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/kernel_charts.py" line="129"/>
        <source>µs (log); dashed: %1 roofline</source>
        <translation>µs（对数）；虚线：%1 的 Roofline</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/kernel_charts.py" line="109"/>
        <source>Achieved bandwidth%1</source>
        <translation>实测带宽%1</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/kernel_charts.py" line="195"/>
        <source>%1 roofline</source>
        <translation>%1 Roofline</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/kernel_charts.py" line="133"/>
        <source>%1 peak %2 GB/s</source>
        <translation>%1 峰值 %2 GB/s</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/kernel_charts.py" line="114"/>
        <source>KV bytes per token, one layer, %1</source>
        <translation>每 Token KV 字节数（单层，%1）</translation>
    </message>
</context>
<context>
    <name>KernelCsv</name>
    <message>
        <location filename="../../workbench/ui/kernel_csv.py" line="130"/>
        <source>one shape per variant</source>
        <translation>每种变体一个形状</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/kernel_csv.py" line="140"/>
        <source>70B twins (sim-70b-*)</source>
        <translation>70B 孪生模型（sim-70b-*）</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/kernel_csv.py" line="142"/>
        <location filename="../../workbench/ui/kernels_view.py" line="550"/>
        <source>default shapes (default-*)</source>
        <translation>默认形状（default-*）</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/kernel_csv.py" line="59"/>
        <source>Fix: open a CSV written by `workbench kernels --csv` or benchmarks/gpu_decode.py.</source>
        <translation>解决：打开由 `workbench kernels --csv` 或 benchmarks/gpu_decode.py 写出的 CSV。</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/kernel_csv.py" line="226"/>
        <source>%1 is not a regular file.</source>
        <translation>%1 不是普通文件。</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/kernel_csv.py" line="231"/>
        <source>%1 is over %2 MiB: not a kernel CSV. %3</source>
        <translation>%1 超过 %2 MiB：不是内核 CSV。%3</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/kernel_csv.py" line="242"/>
        <source>%1 is not UTF-8 text. %2</source>
        <translation>%1 不是 UTF-8 文本。%2</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/kernel_csv.py" line="251"/>
        <source>%1 could not be read: %2</source>
        <translation>无法读取 %1：%2</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/kernel_csv.py" line="263"/>
        <source>%1 is not a kernel CSV: the column(s) %2 are missing. %3</source>
        <translation>%1 不是内核 CSV：缺少列 %2。%3</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/kernel_csv.py" line="295"/>
        <source>%1, line %2: %3 is %4, not a number. %5</source>
        <translation>%1，第 %2 行：%3 为 %4，不是数字。%5</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/kernel_csv.py" line="283"/>
        <source>%1 has the kernel CSV&apos;s columns but no rows. %2</source>
        <translation>%1 有内核 CSV 的列，但没有数据行。%2</translation>
    </message>
</context>
<context>
    <name>KernelTable</name>
    <message>
        <location filename="../../workbench/ui/kernel_table.py" line="16"/>
        <source>variant</source>
        <translation>变体</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/kernel_table.py" line="17"/>
        <source>backend</source>
        <translation>后端</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/kernel_table.py" line="18"/>
        <source>device</source>
        <translation>设备</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/kernel_table.py" line="19"/>
        <source>dtype</source>
        <translation>dtype</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/kernel_table.py" line="20"/>
        <source>batch</source>
        <translation>批大小</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/kernel_table.py" line="21"/>
        <source>KV length</source>
        <translation>KV 长度</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/kernel_table.py" line="22"/>
        <source>q length</source>
        <translation>查询长度</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/kernel_table.py" line="23"/>
        <source>latency µs</source>
        <translation>延迟 µs</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/kernel_table.py" line="24"/>
        <source>GB/s</source>
        <translation>GB/s</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/kernel_table.py" line="25"/>
        <source>TFLOP/s</source>
        <translation>TFLOP/s</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/kernel_table.py" line="26"/>
        <source>% peak BW</source>
        <translation>峰值带宽 %</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/kernel_table.py" line="27"/>
        <source>roofline µs</source>
        <translation>Roofline µs</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/kernel_table.py" line="28"/>
        <source>KV B/token</source>
        <translation>KV 字节/token</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/kernel_table.py" line="29"/>
        <source>shape</source>
        <translation>形状</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/kernel_table.py" line="30"/>
        <source>rel. error</source>
        <translation>相对误差</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/kernel_table.py" line="31"/>
        <source>timing</source>
        <translation>计时</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/kernel_table.py" line="32"/>
        <source>error</source>
        <translation>错误</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/kernel_table.py" line="61"/>
        <source>Kernel timings</source>
        <translation>内核计时</translation>
    </message>
</context>
<context>
    <name>KernelsView</name>
    <message>
        <location filename="../../workbench/ui/kernel_worker_row.py" line="26"/>
        <source>the worker&apos;s Python cannot import torch</source>
        <translation>工作进程的 Python 无法导入 torch</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/kernel_worker_row.py" line="30"/>
        <source>the worker&apos;s Python (%1) cannot import torch: %2</source>
        <translation>工作进程的 Python（%1）无法导入 torch：%2</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/kernels_view.py" line="197"/>
        <source>The kernel worker cannot run kernels: %1</source>
        <translation>内核工作进程无法运行内核：%1</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/kernels_view.py" line="200"/>
        <source>Fix: install torch into that Python (%1), or choose another Python under Worker. The KV bytes/token bars and the roofline lines work without it.</source>
        <translation>解决办法：在该 Python（%1）中安装 torch，或在“工作进程”中选择其他 Python。没有 torch 时，KV 字节/Token 柱状图和 Roofline 曲线仍可使用。</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/kernels_view.py" line="405"/>
        <source>the worker did not offer it</source>
        <translation>工作进程未提供该后端</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/kernels_view.py" line="218"/>
        <source>Worker without torch: %1</source>
        <translation>工作进程没有 torch：%1</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/kernels_view.py" line="225"/>
        <source>Worker ready: torch %1, Triton %2, %3</source>
        <translation>工作进程就绪：torch %1，Triton %2，%3</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/kernels_view.py" line="227"/>
        <source>none</source>
        <translation>无</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/kernels_view.py" line="296"/>
        <source>Starting the kernel worker…</source>
        <translation>正在启动内核工作进程…</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/kernels_view.py" line="287"/>
        <source>Worker start cancelled.</source>
        <translation>已取消启动工作进程。</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/kernels_view.py" line="273"/>
        <source>No worker.</source>
        <translation>无工作进程。</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/kernels_view.py" line="276"/>
        <source>The kernel worker could not start: %1</source>
        <translation>内核工作进程无法启动：%1</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/kernels_view.py" line="279"/>
        <source>Fix: choose a Python that has torch under Worker (%1), or connect to a worker started with --listen. The KV bytes/token bars and the roofline lines work without it.</source>
        <translation>解决办法：在“工作进程”中选择装有 torch 的 Python（%1），或连接到以 --listen 启动的工作进程。没有 torch 时，KV 字节/Token 柱状图和 Roofline 曲线仍可使用。</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/kernels_view.py" line="300"/>
        <location filename="../../workbench/ui/kernels_view.py" line="315"/>
        <source>Worker stopped.</source>
        <translation>工作进程已停止。</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/kernels_view.py" line="309"/>
        <source>The kernel worker stopped unexpectedly (exit code %1). %2</source>
        <translation>内核工作进程意外退出（退出码 %1）。%2</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/kernels_view.py" line="311"/>
        <source>Run again to restart it.</source>
        <translation>再次运行即可重启。</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/kernels_view.py" line="320"/>
        <location filename="../../workbench/ui/kernels_view.py" line="428"/>
        <source>Kernel worker: %1</source>
        <translation>内核工作进程：%1</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/kernels_view.py" line="371"/>
        <source>Pick at least one variant and one KV length.</source>
        <translation>请至少选择一个变体和一个 KV 长度。</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/kernels_view.py" line="387"/>
        <source>starting the worker…</source>
        <translation>正在启动工作进程…</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/kernels_view.py" line="403"/>
        <source>Backend %1 is not available on this worker: %2</source>
        <translation>该工作进程不支持后端 %1：%2</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/kernels_view.py" line="479"/>
        <source>Showing %1 measured rows from %2. Run replaces them with a new sweep.</source>
        <translation>正在显示来自 %2 的 %1 行实测结果。点击“运行”会以新的扫描替换它们。</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/kernels_view.py" line="569"/>
        <source>Export kernel results</source>
        <translation>导出内核结果</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/kernels_view.py" line="573"/>
        <source>Wrote %1 rows to %2</source>
        <translation>已将 %1 行写入 %2</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/kernels_view.py" line="577"/>
        <source>Export charts to folder</source>
        <translation>导出图表到文件夹</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/kernels_view.py" line="583"/>
        <source>Wrote %1 chart files to %2</source>
        <translation>已将 %1 个图表文件写入 %2</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/kernels_view.py" line="592"/>
        <source>Export failed: %1</source>
        <translation>导出失败：%1</translation>
    </message>
</context>
<context>
    <name>KeyRef</name>
    <message>
        <location filename="../../workbench/core/access/providers.py" line="54"/>
        <source>environment variable ${name}</source>
        <translation>环境变量 ${name}</translation>
    </message>
    <message>
        <location filename="../../workbench/core/access/providers.py" line="55"/>
        <source>OS keyring (account &apos;{name}&apos;)</source>
        <translation>系统钥匙串（账户 &apos;{name}&apos;）</translation>
    </message>
    <message>
        <location filename="../../workbench/core/access/providers.py" line="56"/>
        <source>typed in, held in memory for this session only</source>
        <translation>手动输入，仅在本次会话的内存中保存</translation>
    </message>
    <message>
        <location filename="../../workbench/core/access/providers.py" line="57"/>
        <source>no key (a keyless server)</source>
        <translation>无密钥（无需密钥的服务器）</translation>
    </message>
</context>
<context>
    <name>Keys</name>
    <message>
        <location filename="../../workbench/core/access/keys.py" line="29"/>
        <source>provider &apos;{provider}&apos;: environment variable ${var} is not set; export {var}=&lt;your key&gt; in the shell that runs Attention Workbench (or point the provider at another variable)</source>
        <translation>服务商 &apos;{provider}&apos;：环境变量 ${var} 未设置；请在运行 Attention Workbench 的 shell 中执行 export {var}=&lt;你的密钥&gt;（或让该服务商改用其他变量）</translation>
    </message>
    <message>
        <location filename="../../workbench/core/access/keys.py" line="34"/>
        <source>provider &apos;{provider}&apos;: environment variable ${var} is empty; export {var}=&lt;your key&gt; in the shell that runs Attention Workbench (or point the provider at another variable)</source>
        <translation>服务商 &apos;{provider}&apos;：环境变量 ${var} 为空；请在运行 Attention Workbench 的 shell 中执行 export {var}=&lt;你的密钥&gt;（或让该服务商改用其他变量）</translation>
    </message>
    <message>
        <location filename="../../workbench/core/access/keys.py" line="39"/>
        <source>provider &apos;{provider}&apos;: {why}</source>
        <translation>服务商 &apos;{provider}&apos;：{why}</translation>
    </message>
    <message>
        <location filename="../../workbench/core/access/keys.py" line="40"/>
        <source>provider &apos;{provider}&apos;: the OS keyring could not be read ({error}); unlock it, or reference the key as $VAR instead</source>
        <translation>服务商 &apos;{provider}&apos;：无法读取系统密钥环（{error}）；请解锁密钥环，或改为以 $VAR 引用密钥</translation>
    </message>
    <message>
        <location filename="../../workbench/core/access/keys.py" line="45"/>
        <source>provider &apos;{provider}&apos;: the OS keyring has no key for account &apos;{account}&apos; (service &apos;{service}&apos;); store the key again from the provider editor, or reference an environment variable as $VAR instead</source>
        <translation>服务商 &apos;{provider}&apos;：系统密钥环中没有账户 &apos;{account}&apos;（服务 &apos;{service}&apos;）的密钥；请在服务商编辑器中重新保存密钥，或改为以 $VAR 引用环境变量</translation>
    </message>
    <message>
        <location filename="../../workbench/core/access/keys.py" line="51"/>
        <source>provider &apos;{provider}&apos;: its key is typed in for one session only and this session has none; type it again, or keep it in an environment variable and reference it as $VAR</source>
        <translation>服务商 &apos;{provider}&apos;：它的密钥只在单次会话中输入，而本次会话还没有；请重新输入，或把密钥放进环境变量并以 $VAR 引用</translation>
    </message>
    <message>
        <location filename="../../workbench/core/access/keys.py" line="56"/>
        <source>provider &apos;{provider}&apos;: unknown key source &apos;{source}&apos;</source>
        <translation>服务商 &apos;{provider}&apos;：未知的密钥来源 &apos;{source}&apos;</translation>
    </message>
    <message>
        <location filename="../../workbench/core/access/keys.py" line="57"/>
        <source>provider &apos;{provider}&apos;: header &apos;{header}&apos; uses ${{{var}}}, and environment variable {var} is not set; export it in this shell first</source>
        <translation>服务商 &apos;{provider}&apos;：请求头 &apos;{header}&apos; 使用了 ${{{var}}}，但环境变量 {var} 未设置；请先在当前 shell 中 export 它</translation>
    </message>
    <message>
        <location filename="../../workbench/core/access/keys.py" line="62"/>
        <source>the OS keyring refused the key for account &apos;{account}&apos; ({error}); unlock it, or keep the key in an environment variable and reference it as $VAR</source>
        <translation>系统密钥环拒绝保存账户 &apos;{account}&apos; 的密钥（{error}）；请解锁密钥环，或把密钥放进环境变量并以 $VAR 引用</translation>
    </message>
    <message>
        <location filename="../../workbench/core/access/keys.py" line="67"/>
        <source>{source}: unavailable ({why})</source>
        <translation>{source}：不可用（{why}）</translation>
    </message>
    <message>
        <location filename="../../workbench/core/access/keys.py" line="244"/>
        <source>keep the key in an environment variable and reference it as $VAR</source>
        <translation>请把密钥放在环境变量中，并以 $VAR 引用</translation>
    </message>
    <message>
        <location filename="../../workbench/core/access/keys.py" line="249"/>
        <source>no OS keyring is available here ({why}); {advice}</source>
        <translation>此处没有可用的系统密钥环（{why}）；{advice}</translation>
    </message>
    <message>
        <location filename="../../workbench/core/access/keys.py" line="254"/>
        <source>the keyring package is missing</source>
        <translation>缺少 keyring 包</translation>
    </message>
    <message>
        <location filename="../../workbench/core/access/keys.py" line="268"/>
        <source>{name}: no Secret Service, KWallet, macOS Keychain or Windows Credential Locker backend</source>
        <translation>{name}：没有 Secret Service、KWallet、macOS 钥匙串或 Windows 凭据管理器后端</translation>
    </message>
    <message>
        <location filename="../../workbench/core/access/keys.py" line="277"/>
        <source>OS keyring: {name}</source>
        <translation>系统密钥环：{name}</translation>
    </message>
</context>
<context>
    <name>LivePlots</name>
    <message>
        <location filename="../../workbench/ui/live_plots.py" line="162"/>
        <source>Output tokens vs time</source>
        <translation>输出 Token 数随时间变化</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/live_plots.py" line="163"/>
        <source>seconds since the request was sent</source>
        <translation>自发送请求起的秒数</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/live_plots.py" line="164"/>
        <source>tokens</source>
        <translation>Token 数</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/live_plots.py" line="165"/>
        <source>Time to first token</source>
        <translation>首 Token 延迟</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/live_plots.py" line="166"/>
        <source>TTFT (ms)</source>
        <translation>首 Token 延迟 (ms)</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/live_plots.py" line="167"/>
        <source>Decode speed</source>
        <translation>解码速度</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/live_plots.py" line="168"/>
        <source>decode (tokens/s)</source>
        <translation>解码（tokens/s）</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/live_plots.py" line="360"/>
        <source>stopped</source>
        <translation>已停止</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/live_plots.py" line="361"/>
        <source>failed: %1</source>
        <translation>失败：%1</translation>
    </message>
</context>
<context>
    <name>MainWindow</name>
    <message>
        <location filename="../../workbench/ui/main_window.py" line="340"/>
        <source>Cannot run: %1. Change it in the Providers tab.</source>
        <translation>无法运行：%1。请在“服务商”标签页中修改。</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/main_window.py" line="521"/>
        <source>Attention Workbench</source>
        <translation>Attention Workbench</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/main_window.py" line="527"/>
        <source>Compare</source>
        <translation>对比</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/main_window.py" line="528"/>
        <source>Sweep</source>
        <translation>扫描</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/main_window.py" line="529"/>
        <source>Capacity</source>
        <translation>容量</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/main_window.py" line="530"/>
        <source>Results</source>
        <translation>结果</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/main_window.py" line="531"/>
        <source>History</source>
        <translation>历史</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/main_window.py" line="532"/>
        <source>Summary</source>
        <translation>摘要</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/main_window.py" line="543"/>
        <source>Starting the built-in provider…</source>
        <translation>正在启动内置服务商…</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/main_window.py" line="233"/>
        <source>Gateway overhead needs one model on two saved providers: add the upstream (direct) and the gateway in front of it in the Providers tab, each with that model in its list (%1 saved).</source>
        <translation>网关开销需要两个已保存的服务商都有同一个模型：请在“服务商”标签页中添加上游（直连）和其前面的网关，并在各自的模型列表中加入该模型（已保存 %1 个）。</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/main_window.py" line="244"/>
        <source>Gateway overhead: pane 1 is direct (%1), pane 2 the gateway (%2)</source>
        <translation>网关开销：窗格 1 为直连（%1），窗格 2 为网关（%2）</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/main_window.py" line="286"/>
        <source>Several models on one server (%1) run at once: they share its compute, so each one&apos;s figures include the others&apos; load. Choose One after another to measure each alone.</source>
        <translation>同一服务器（%1）上的多个模型同时运行：它们共享服务器的算力，所以每个模型的数据都包含了其他模型的负载。选择“依次运行”可以单独测量每个模型。</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/main_window.py" line="321"/>
        <source>Nothing sent: no pane&apos;s prompt fits its model.</source>
        <translation>未发送：没有任何窗格的提示词能放进其模型。</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/main_window.py" line="380"/>
        <source>Replay of run %1, recorded %2, at %3× speed: the recorded text and times, not a new measurement.</source>
        <translation>回放运行 %1（录制于 %2），%3× 速度：显示的是录制时的文本和时间，不是新的测量。</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/main_window.py" line="432"/>
        <source>elapsed %1 s</source>
        <translation>已用 %1 秒</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/main_window.py" line="434"/>
        <source>ETA estimating…</source>
        <translation>预计剩余：估算中…</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/main_window.py" line="436"/>
        <source>ETA %1 s</source>
        <translation>预计剩余 %1 s</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/main_window.py" line="490"/>
        <source>replay of %1</source>
        <translation>%1 的回放</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/main_window.py" line="492"/>
        <source>Run %1: %2</source>
        <translation>运行 %1：%2</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/main_window.py" line="515"/>
        <source>Built-in provider at %1 (simulated models)</source>
        <translation>内置服务商：%1（模拟模型）</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/window_export.py" line="53"/>
        <source>Export CSV</source>
        <translation>导出 CSV</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/window_export.py" line="58"/>
        <source>Wrote %1 rows to %2</source>
        <translation>已将 %1 行写入 %2</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/window_export.py" line="66"/>
        <source>Export charts to folder</source>
        <translation>导出图表到文件夹</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/window_export.py" line="71"/>
        <source>Wrote %1 chart files</source>
        <translation>已写入 %1 个图表文件</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/main_window.py" line="533"/>
        <source>Providers</source>
        <translation>服务商</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/main_window.py" line="534"/>
        <source>Kernels</source>
        <translation>内核</translation>
    </message>
</context>
<context>
    <name>MenuBar</name>
    <message>
        <location filename="../../workbench/ui/menus.py" line="103"/>
        <source>&amp;File</source>
        <translation>文件(&amp;F)</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/menus.py" line="104"/>
        <source>&amp;Quit</source>
        <translation>退出(&amp;Q)</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/menus.py" line="105"/>
        <source>&amp;View</source>
        <translation>视图(&amp;V)</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/menus.py" line="106"/>
        <source>&amp;Theme</source>
        <translation>主题(&amp;T)</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/menus.py" line="108"/>
        <source>&amp;System</source>
        <translation>跟随系统(&amp;S)</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/menus.py" line="109"/>
        <source>&amp;Light</source>
        <translation>浅色(&amp;L)</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/menus.py" line="110"/>
        <source>&amp;Dark</source>
        <translation>深色(&amp;D)</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/menus.py" line="113"/>
        <source>&amp;Language</source>
        <translation>语言(&amp;L)</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/menus.py" line="114"/>
        <source>&amp;Help</source>
        <translation>帮助(&amp;H)</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/menus.py" line="115"/>
        <source>&amp;Documentation</source>
        <translation>文档(&amp;D)</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/menus.py" line="116"/>
        <source>Open the &amp;log folder</source>
        <translation>打开日志文件夹(&amp;L)</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/menus.py" line="117"/>
        <source>&amp;About Attention Workbench</source>
        <translation>关于 Attention Workbench(&amp;A)</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/menus.py" line="143"/>
        <source>Language: %1</source>
        <translation>语言：%1</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/menus.py" line="156"/>
        <source>The documentation is the docs/ folder of the source release (attention-workbench-%1.tar.gz) and its README.md.</source>
        <translation>文档位于源码发布包（attention-workbench-%1.tar.gz）的 docs/ 文件夹及其 README.md 中。</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/menus.py" line="166"/>
        <source>About Attention Workbench</source>
        <translation>关于 Attention Workbench</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/menus.py" line="169"/>
        <source>&lt;b&gt;Attention Workbench&lt;/b&gt;&lt;br&gt;Measures LLM servers behind OpenAI-compatible APIs: time to first token and decode speed, per request.</source>
        <translation>&lt;b&gt;Attention Workbench&lt;/b&gt;&lt;br&gt;测量 OpenAI 兼容接口后的大模型服务：逐个请求的首 token 延迟与解码速度。</translation>
    </message>
</context>
<context>
    <name>ModelList</name>
    <message>
        <location filename="../../workbench/ui/model_list.py" line="79"/>
        <location filename="../../workbench/ui/model_list.py" line="84"/>
        <source>Models</source>
        <translation>模型</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/model_list.py" line="80"/>
        <source>Fetch models</source>
        <translation>获取模型</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/model_list.py" line="81"/>
        <source>Ask the server for its list (GET /models)</source>
        <translation>向服务器请求模型列表（GET /models）</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/model_list.py" line="82"/>
        <location filename="../../workbench/ui/model_list.py" line="83"/>
        <source>Search models</source>
        <translation>搜索模型</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/model_list.py" line="85"/>
        <source>Model id to add</source>
        <translation>要添加的模型 ID</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/model_list.py" line="86"/>
        <source>a model id the server does not list</source>
        <translation>服务器未列出的模型 ID</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/model_list.py" line="87"/>
        <source>Add model</source>
        <translation>添加模型</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/model_list.py" line="89"/>
        <source>Checked models are saved with the provider and offered in the panes.</source>
        <translation>勾选的模型随服务商一起保存，并可在窗格中选用。</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/model_list.py" line="137"/>
        <source>%1 ctx</source>
        <translation>上下文 %1</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/model_list.py" line="139"/>
        <source>not in the catalog</source>
        <translation>不在模型目录中</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/model_list.py" line="141"/>
        <source>not listed by the server</source>
        <translation>服务器未列出</translation>
    </message>
</context>
<context>
    <name>PaneWidget</name>
    <message>
        <location filename="../../workbench/ui/pane_widget.py" line="149"/>
        <source>Model of pane %1</source>
        <translation>窗格 %1 的模型</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/pane_widget.py" line="151"/>
        <source>Fit the prompt to pane %1&apos;s context window</source>
        <translation>将提示词长度调整到窗格 %1 的上下文窗口内</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/pane_widget.py" line="153"/>
        <source>Stop</source>
        <translation>停止</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/pane_widget.py" line="154"/>
        <source>Answer in pane %1</source>
        <translation>窗格 %1 中的回答</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/pane_widget.py" line="163"/>
        <source>TTFT</source>
        <translation>TTFT</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/pane_widget.py" line="163"/>
        <source>decode</source>
        <translation>解码</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/pane_widget.py" line="163"/>
        <source>tokens</source>
        <translation>Token 数</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/pane_widget.py" line="163"/>
        <source>elapsed</source>
        <translation>用时</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/pane_widget.py" line="164"/>
        <source>cost</source>
        <translation>费用</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/pane_widget.py" line="155"/>
        <location filename="../../workbench/ui/pane_widget.py" line="174"/>
        <source>Protocol of pane %1</source>
        <translation>窗格 %1 的协议</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/pane_widget.py" line="160"/>
        <source>The protocol this pane sends with; it starts as its provider&apos;s</source>
        <translation>此窗格发送请求所用的协议；默认与其服务商相同</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/pane_widget.py" line="240"/>
        <source>KV cache %1 at %2</source>
        <translation>%2 时 KV 缓存 %1</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/pane_widget.py" line="245"/>
        <source>%1 per token, all layers (bf16)</source>
        <translation>每 Token %1，全部层（bf16）</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/pane_widget.py" line="248"/>
        <source>KV cache: unknown model shape</source>
        <translation>KV 缓存：模型结构未知</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/pane_widget.py" line="263"/>
        <source>, about $%1 per request</source>
        <translation>，每次请求约 $%1</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/pane_widget.py" line="265"/>
        <source>Fits the %1 context window%2</source>
        <translation>未超出 %1 上下文窗口%2</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/pane_widget.py" line="277"/>
        <source>Fit: prompt %1 tokens</source>
        <translation>适配：提示 %1 tokens</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/pane_widget.py" line="320"/>
        <source>Will not fit: prompt %1 + output %2 = %3 tokens, over the %4 context window.</source>
        <translation>放不下：提示 %1 + 输出 %2 = %3 tokens，超过 %4 的上下文窗口。</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/pane_widget.py" line="333"/>
        <source>Will not fit in memory: %1</source>
        <translation>内存放不下：%1</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/pane_widget.py" line="341"/>
        <source>; its KV cache fits: %1 per device beside %2 of weights (%3 usable)</source>
        <translation>；KV 缓存放得下：每卡 %1，另有权重 %2（可用 %3）</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/pane_widget.py" line="355"/>
        <source>Waiting for the first token…</source>
        <translation>正在等待首个 Token…</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/pane_widget.py" line="389"/>
        <source>no price</source>
        <translation>无价格</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/pane_widget.py" line="399"/>
        <source>Stopped.</source>
        <translation>已停止。</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/pane_widget.py" line="401"/>
        <source>Not sent: %1</source>
        <translation>未发送：%1</translation>
    </message>
</context>
<context>
    <name>PromptPanel</name>
    <message>
        <location filename="../../workbench/ui/prompt_slider.py" line="162"/>
        <source>Prompt length</source>
        <translation>提示词长度</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/prompt_slider.py" line="163"/>
        <source>Prompt task</source>
        <translation>提示词任务</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/prompt_slider.py" line="167"/>
        <source>Needle depth</source>
        <translation>“针”的位置深度</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/prompt_slider.py" line="165"/>
        <source>Task: summarize</source>
        <translation>任务：摘要</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/prompt_slider.py" line="166"/>
        <source>Task: find the needle</source>
        <translation>任务：大海捞针</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/prompt_slider.py" line="168"/>
        <source>needle depth </source>
        <translation>针的深度 </translation>
    </message>
    <message>
        <location filename="../../workbench/ui/prompt_slider.py" line="170"/>
        <source>Where the needle sits in the prompt: 0 its start, 1 its end</source>
        <translation>针在提示中的位置：0 为开头，1 为结尾</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/prompt_slider.py" line="172"/>
        <source>Maximum output tokens</source>
        <translation>最大输出 token 数</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/prompt_slider.py" line="173"/>
        <source>max tokens </source>
        <translation>最大 Token </translation>
    </message>
    <message>
        <location filename="../../workbench/ui/prompt_slider.py" line="174"/>
        <source>Prompt text language</source>
        <translation>提示词文本语言</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/prompt_slider.py" line="175"/>
        <source>English text</source>
        <translation>英文文本</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/prompt_slider.py" line="176"/>
        <source>Chinese text</source>
        <translation>中文文本</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/prompt_slider.py" line="177"/>
        <source>Prompt</source>
        <translation>提示词</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/prompt_slider.py" line="178"/>
        <location filename="../../workbench/ui/prompt_slider.py" line="199"/>
        <source>%1 tokens</source>
        <translation>%1 Token</translation>
    </message>
</context>
<context>
    <name>Protocol</name>
    <message>
        <location filename="../../workbench/core/protocols/anthropic.py" line="85"/>
        <source>Anthropic Messages</source>
        <translation>Anthropic Messages</translation>
    </message>
    <message>
        <location filename="../../workbench/core/protocols/chat.py" line="49"/>
        <source>OpenAI chat completions</source>
        <translation>OpenAI 聊天补全</translation>
    </message>
    <message>
        <location filename="../../workbench/core/protocols/responses.py" line="57"/>
        <source>OpenAI Responses</source>
        <translation>OpenAI Responses</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/protocol_choice.py" line="16"/>
        <source>%1 (POST %2)</source>
        <translation>%1（POST %2）</translation>
    </message>
</context>
<context>
    <name>ProviderController</name>
    <message>
        <location filename="../../workbench/ui/pane_choices.py" line="20"/>
        <source>%1, built-in</source>
        <translation>%1，内置</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/provider_controller.py" line="174"/>
        <source>a provider needs a name</source>
        <translation>服务商必须有名称</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/provider_controller.py" line="177"/>
        <source>&apos;%1&apos; is the built-in provider&apos;s name; choose another</source>
        <translation>“%1”是内置服务商的名称，请换一个</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/provider_controller.py" line="184"/>
        <source>a provider named &apos;%1&apos; already exists; choose another name</source>
        <translation>已存在名为“%1”的服务商，请换一个名称</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/provider_controller.py" line="212"/>
        <source>no provider named &apos;%1&apos;</source>
        <translation>没有名为“%1”的服务商</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/provider_controller.py" line="253"/>
        <source>no key (the built-in provider)</source>
        <translation>无密钥（内置服务商）</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/provider_controller.py" line="256"/>
        <source>typed into the provider form (not saved yet)</source>
        <translation>在服务商表单中输入（尚未保存）</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/provider_controller.py" line="323"/>
        <source>GET /models at %1 did not answer within 30 s; run Test connection to see where it stops</source>
        <translation>%1 的 GET /models 在 30 s 内无响应；请运行“测试连接”查看卡在哪一步</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/provider_controller.py" line="332"/>
        <source>GET /models at %1 failed: %2</source>
        <translation>%1 的 GET /models 失败：%2</translation>
    </message>
</context>
<context>
    <name>ProviderForm</name>
    <message>
        <location filename="../../workbench/ui/provider_form.py" line="180"/>
        <source>Provider</source>
        <translation>服务商</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/provider_form.py" line="185"/>
        <source>a short name, e.g. deepseek</source>
        <translation>简短名称，例如 deepseek</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/provider_form.py" line="184"/>
        <source>Name</source>
        <translation>名称</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/provider_form.py" line="186"/>
        <source>Base URL</source>
        <translation>Base URL</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/provider_form.py" line="201"/>
        <location filename="../../workbench/ui/provider_form.py" line="203"/>
        <source>Protocol</source>
        <translation>协议</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/provider_form.py" line="204"/>
        <location filename="../../workbench/ui/provider_form.py" line="208"/>
        <source>Auth header</source>
        <translation>认证请求头</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/provider_form.py" line="206"/>
        <source>How the key is sent; it follows the protocol unless you change it</source>
        <translation>密钥的发送方式；除非你修改，否则随协议而定</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/provider_form.py" line="214"/>
        <source>Environment variable</source>
        <translation>环境变量</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/provider_form.py" line="215"/>
        <source>OS keyring</source>
        <translation>系统密钥环</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/provider_form.py" line="216"/>
        <source>This session only (typed, never saved)</source>
        <translation>仅本次会话（手动输入，不保存）</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/provider_form.py" line="217"/>
        <source>No key</source>
        <translation>无密钥</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/provider_form.py" line="220"/>
        <source>Key from</source>
        <translation>密钥来源</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/provider_form.py" line="221"/>
        <source>variable name, e.g. DEEPSEEK_API_KEY</source>
        <translation>变量名，例如 DEEPSEEK_API_KEY</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/provider_form.py" line="222"/>
        <source>Variable</source>
        <translation>变量</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/provider_form.py" line="223"/>
        <source>keyring account (default: the name)</source>
        <translation>密钥环账户（默认为服务商名称）</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/provider_form.py" line="224"/>
        <source>Account</source>
        <translation>账户</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/provider_form.py" line="225"/>
        <source>paste the key; it is never shown or written</source>
        <translation>粘贴密钥；不会显示，也不会写入文件</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/provider_form.py" line="226"/>
        <source>Key</source>
        <translation>密钥</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/provider_form.py" line="190"/>
        <source>one per line, Name: value — credentials as ${VAR}, e.g. X-Api-Key: ${MY_KEY}</source>
        <translation>每行一个，格式为 名称: 值 — 凭据写成 ${VAR}，例如 X-Api-Key: ${MY_KEY}</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/provider_form.py" line="192"/>
        <source>Extra headers</source>
        <translation>额外请求头</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/provider_form.py" line="194"/>
        <source> s</source>
        <translation> s</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/provider_form.py" line="195"/>
        <source>first token</source>
        <translation>首 Token</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/provider_form.py" line="196"/>
        <source>stall</source>
        <translation>停滞</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/provider_form.py" line="197"/>
        <source>Timeouts</source>
        <translation>超时</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/provider_form.py" line="234"/>
        <source>System (*_PROXY; loopback always direct)</source>
        <translation>系统（*_PROXY；本地回环始终直连）</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/provider_form.py" line="235"/>
        <source>None (direct)</source>
        <translation>不使用（直连）</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/provider_form.py" line="236"/>
        <source>This proxy URL</source>
        <translation>指定代理 URL</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/provider_form.py" line="230"/>
        <location filename="../../workbench/ui/provider_form.py" line="240"/>
        <source>Proxy</source>
        <translation>代理</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/provider_form.py" line="239"/>
        <source>Proxy URL</source>
        <translation>代理 URL</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/provider_form.py" line="241"/>
        <source>Verify TLS certificates</source>
        <translation>验证 TLS 证书</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/provider_form.py" line="244"/>
        <source>TLS certificate verification is OFF: anyone on the network path can read the key and the traffic. Turn it back on unless this is a lab.</source>
        <translation>TLS 证书验证已关闭：网络路径上的任何人都能读取密钥和流量。除非是实验环境，否则请重新开启。</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/provider_form.py" line="284"/>
        <source>paste the key; Save puts it in the keyring</source>
        <translation>粘贴密钥；保存时存入密钥环</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/provider_form.py" line="286"/>
        <source>paste the key; kept in memory only</source>
        <translation>粘贴密钥；仅保存在内存中</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/provider_form.py" line="296"/>
        <source>Stored in the OS keyring, never in a file. %1</source>
        <translation>存储在系统密钥环中，不写入文件。%1</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/provider_form.py" line="300"/>
        <source>Held in memory until the app closes; you type it again next session.</source>
        <translation>保存在内存中，直到应用关闭；下次会话需重新输入。</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/provider_form.py" line="302"/>
        <source>Read from the environment when needed; the file keeps only the name.</source>
        <translation>需要时从环境变量读取；文件中只保存变量名。</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/provider_form.py" line="304"/>
        <source>For servers that need no key.</source>
        <translation>适用于无需密钥的服务器。</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/provider_form.py" line="306"/>
        <source>The OS keyring is unavailable here: %1</source>
        <translation>此处无法使用系统密钥环：%1</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/provider_form.py" line="311"/>
        <source>(No OS keyring here: to keep a key between sessions, use an environment variable.)</source>
        <translation>（此处没有系统密钥环：如需跨会话保留密钥，请使用环境变量。）</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/provider_form.py" line="342"/>
        <source>Saved as %1 — %2</source>
        <translation>已保存为 %1 — %2</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/provider_form.py" line="356"/>
        <source>a provider needs a name</source>
        <translation>服务商必须有名称</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/provider_form.py" line="394"/>
        <source>the key&apos;s environment variable must be a name like MY_API_KEY (letters, digits and _); put the key itself in the variable with export MY_API_KEY=... before starting the app</source>
        <translation>密钥的环境变量名必须形如 MY_API_KEY（字母、数字和 _）；请在启动应用前用 export MY_API_KEY=... 把密钥本身放入该变量</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/provider_form.py" line="414"/>
        <source>extra headers, line %1: write it as Name: value</source>
        <translation>额外请求头第 %1 行：请写成 名称: 值</translation>
    </message>
</context>
<context>
    <name>ProviderPanel</name>
    <message>
        <location filename="../../workbench/ui/provider_panel.py" line="194"/>
        <source>Saved providers</source>
        <translation>已保存的服务商</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/provider_panel.py" line="195"/>
        <source>Add</source>
        <translation>添加</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/provider_panel.py" line="196"/>
        <source>Remove</source>
        <translation>删除</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/provider_panel.py" line="197"/>
        <source>Import…</source>
        <translation>导入…</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/provider_panel.py" line="198"/>
        <source>From a config file…</source>
        <translation>从配置文件…</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/provider_panel.py" line="199"/>
        <source>From a folder (home or tool folder)…</source>
        <translation>从文件夹（主目录或工具目录）…</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/provider_panel.py" line="200"/>
        <source>Save</source>
        <translation>保存</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/provider_panel.py" line="201"/>
        <source>Test connection</source>
        <translation>测试连接</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/provider_panel.py" line="203"/>
        <source>Run the connection doctor: proxy, DNS, TCP, TLS, /v1, key, model, stream</source>
        <translation>运行连接诊断：代理、DNS、TCP、TLS、/v1、密钥、模型、流式输出</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/provider_panel.py" line="214"/>
        <source>starting…</source>
        <translation>正在启动…</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/provider_panel.py" line="216"/>
        <source>%1 (built-in, read-only)
    %2</source>
        <translation>%1
    %2
    （内置，只读）</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/provider_panel.py" line="221"/>
        <source>The built-in provider: simulated models on this machine</source>
        <translation>内置服务商：在本机运行的模拟模型</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/provider_panel.py" line="226"/>
        <source>⚠ TLS verification OFF</source>
        <translation>⚠ TLS 验证已关闭</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/provider_panel.py" line="287"/>
        <source>New provider: fill in the base URL and where its key comes from.</source>
        <translation>新服务商：请填写 Base URL 和密钥的来源。</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/provider_panel.py" line="326"/>
        <source>the built-in provider has not started yet</source>
        <translation>内置服务商尚未启动</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/provider_panel.py" line="385"/>
        <source>Saved &apos;%1&apos; to %2.</source>
        <translation>已将“%1”保存到 %2。</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/provider_panel.py" line="389"/>
        <source>Note: $%1 is not set in this app&apos;s environment yet.</source>
        <translation>注意：本应用的环境中尚未设置 $%1。</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/provider_panel.py" line="407"/>
        <source>Remove provider</source>
        <translation>删除服务商</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/provider_panel.py" line="409"/>
        <source>Remove the provider &apos;%1&apos;? Its key stays where it is (environment or keyring).</source>
        <translation>删除服务商“%1”？其密钥仍保留在原处（环境变量或密钥环）。</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/provider_panel.py" line="420"/>
        <source>Nothing removed.</source>
        <translation>未删除任何内容。</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/provider_panel.py" line="433"/>
        <source>Removed &apos;%1&apos;.</source>
        <translation>已删除“%1”。</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/provider_panel.py" line="439"/>
        <source>Import providers from a config file</source>
        <translation>从配置文件导入服务商</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/provider_panel.py" line="441"/>
        <source>Configs (*.json *.jsonc *.toml *.db);;All files (*)</source>
        <translation>配置文件 (*.json *.jsonc *.toml *.db);;所有文件 (*)</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/provider_panel.py" line="448"/>
        <source>Import providers from a folder (e.g. your home folder)</source>
        <translation>从文件夹导入服务商（例如主目录）</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/provider_panel.py" line="461"/>
        <source>Reading %1…</source>
        <translation>正在读取 %1…</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/provider_panel.py" line="471"/>
        <source>Import cancelled: nothing saved.</source>
        <translation>已取消导入：未保存任何内容。</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/provider_panel.py" line="482"/>
        <source>Nothing new to save: %1 already saved.</source>
        <translation>没有需要保存的新内容：%1 已保存。</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/provider_panel.py" line="488"/>
        <source>Imported %1 to %2.</source>
        <translation>已将 %1 导入到 %2。</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/provider_panel.py" line="514"/>
        <source>Testing the connection…</source>
        <translation>正在测试连接…</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/provider_panel.py" line="521"/>
        <source>Not run.</source>
        <translation>未运行。</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/provider_panel.py" line="538"/>
        <source>Connection test: %1 passed, %2 failed, %3 skipped.</source>
        <translation>连接测试：%1 项通过，%2 项失败，%3 项跳过。</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/provider_panel.py" line="556"/>
        <source>Asking the server for its models…</source>
        <translation>正在向服务器请求模型列表…</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/provider_panel.py" line="569"/>
        <source>%1 model(s) listed by %2.</source>
        <translation>%2 列出了 %1 个模型。</translation>
    </message>
</context>
<context>
    <name>ProxyRoute</name>
    <message>
        <location filename="../../workbench/core/access/proxy_route.py" line="49"/>
        <source>direct (the provider&apos;s proxy setting is &apos;none&apos;)</source>
        <translation>直连（该服务商的代理设置为 &apos;none&apos;）</translation>
    </message>
    <message>
        <location filename="../../workbench/core/access/proxy_route.py" line="52"/>
        <source>via the provider&apos;s proxy {proxy}</source>
        <translation>经由该服务商的代理 {proxy}</translation>
    </message>
    <message>
        <location filename="../../workbench/core/access/proxy_route.py" line="53"/>
        <source>direct ({host} is loopback: *_PROXY ignored)</source>
        <translation>直连（{host} 是本机回环地址：忽略 *_PROXY）</translation>
    </message>
    <message>
        <location filename="../../workbench/core/access/proxy_route.py" line="54"/>
        <source>direct (no proxy variable applies)</source>
        <translation>直连（没有适用的代理变量）</translation>
    </message>
    <message>
        <location filename="../../workbench/core/access/proxy_route.py" line="55"/>
        <source>direct ({variable} entry &apos;{entry}&apos; matches {host})</source>
        <translation>直连（{variable} 中的条目 &apos;{entry}&apos; 匹配 {host}）</translation>
    </message>
    <message>
        <location filename="../../workbench/core/access/proxy_route.py" line="58"/>
        <source>via {proxy} ({variable})</source>
        <translation>经由 {proxy}（{variable}）</translation>
    </message>
</context>
<context>
    <name>QAbstractFileIconProvider</name>
    <message>
        <location filename="../../workbench/ui/translators.py" line="22"/>
        <source>Drive</source>
        <translation>驱动器</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/translators.py" line="23"/>
        <source>Unknown</source>
        <translation>未知</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/translators.py" line="28"/>
        <source>Folder</source>
        <comment>All other platforms</comment>
        <translation>文件夹</translation>
    </message>
</context>
<context>
    <name>QFileDialog</name>
    <message>
        <location filename="../../workbench/ui/translators.py" line="20"/>
        <source>&amp;Look in:</source>
        <translation>查找范围(&amp;L)：</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/translators.py" line="21"/>
        <source>Files of &amp;type:</source>
        <translation>文件类型(&amp;T)：</translation>
    </message>
</context>
<context>
    <name>RequestFailure</name>
    <message>
        <location filename="../../workbench/core/foundation/failure_words.py" line="16"/>
        <source>cannot connect ({detail})</source>
        <translation>无法连接（{detail}）</translation>
    </message>
    <message>
        <location filename="../../workbench/core/foundation/failure_words.py" line="17"/>
        <source>proxy failed ({detail})</source>
        <translation>代理失败（{detail}）</translation>
    </message>
    <message>
        <location filename="../../workbench/core/foundation/failure_words.py" line="18"/>
        <source>connection lost mid-stream ({detail})</source>
        <translation>流传输中途连接断开（{detail}）</translation>
    </message>
    <message>
        <location filename="../../workbench/core/foundation/failure_words.py" line="19"/>
        <source>bad stream event ({detail})</source>
        <translation>流事件有误（{detail}）</translation>
    </message>
    <message>
        <location filename="../../workbench/core/foundation/failure_words.py" line="20"/>
        <source>broken HTTP response ({kind}: {text})</source>
        <translation>HTTP 响应损坏（{kind}: {text}）</translation>
    </message>
    <message>
        <location filename="../../workbench/core/foundation/failure_words.py" line="21"/>
        <source>error event in the stream: {error}</source>
        <translation>流中出现错误事件：{error}</translation>
    </message>
    <message>
        <location filename="../../workbench/core/foundation/failure_words.py" line="22"/>
        <source>no token for {seconds} s</source>
        <translation>{seconds} 秒内没有收到 token</translation>
    </message>
    <message>
        <location filename="../../workbench/core/foundation/failure_words.py" line="23"/>
        <source>gave up after {seconds} s</source>
        <translation>{seconds} 秒后放弃</translation>
    </message>
    <message>
        <location filename="../../workbench/core/foundation/failure_words.py" line="24"/>
        <source>gave up after {seconds} s (the default total limit for max_tokens={max_tokens}: first-token limit + stall limit + {per_token} s per token)</source>
        <translation>{seconds} 秒后放弃（max_tokens={max_tokens} 时的默认总时限：首 token 时限 + 停顿时限 + 每 token {per_token} 秒）</translation>
    </message>
    <message>
        <location filename="../../workbench/core/foundation/failure_words.py" line="29"/>
        <source>the stream ended with no text</source>
        <translation>流已结束，但没有任何文本</translation>
    </message>
    <message>
        <location filename="../../workbench/core/foundation/failure_words.py" line="30"/>
        <source>the server generated tokens (completion_tokens={tokens}, finish_reason={finish}) but sent no visible text</source>
        <translation>服务器生成了 token（completion_tokens={tokens}，finish_reason={finish}），但没有发送可见文本</translation>
    </message>
    <message>
        <location filename="../../workbench/core/foundation/failure_words.py" line="35"/>
        <source>stopped by the user</source>
        <translation>已被用户停止</translation>
    </message>
</context>
<context>
    <name>ResultColumns</name>
    <message>
        <location filename="../../workbench/ui/result_columns.py" line="13"/>
        <source>run_id</source>
        <translation>运行 ID</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/result_columns.py" line="14"/>
        <source>request_id</source>
        <translation>请求 ID</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/result_columns.py" line="15"/>
        <source>started_at</source>
        <translation>开始时间</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/result_columns.py" line="16"/>
        <source>provider</source>
        <translation>服务商</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/result_columns.py" line="17"/>
        <source>base_url_host</source>
        <translation>服务器地址</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/result_columns.py" line="18"/>
        <source>model</source>
        <translation>模型</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/result_columns.py" line="19"/>
        <source>attention</source>
        <translation>注意力</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/result_columns.py" line="20"/>
        <source>task</source>
        <translation>任务</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/result_columns.py" line="21"/>
        <source>prompt_tokens_target</source>
        <translation>目标提示 Token 数</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/result_columns.py" line="22"/>
        <source>prompt_tokens</source>
        <translation>提示 Token 数</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/result_columns.py" line="23"/>
        <source>completion_tokens</source>
        <translation>输出 Token 数</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/result_columns.py" line="24"/>
        <source>cached_tokens</source>
        <translation>缓存 Token 数</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/result_columns.py" line="25"/>
        <source>usage_estimated</source>
        <translation>用量为估算</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/result_columns.py" line="26"/>
        <source>ttft_ms</source>
        <translation>TTFT ms</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/result_columns.py" line="27"/>
        <source>ttfc_ms</source>
        <translation>首块延迟 ms</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/result_columns.py" line="28"/>
        <source>e2e_ms</source>
        <translation>端到端 ms</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/result_columns.py" line="29"/>
        <source>decode_tps</source>
        <translation>解码 tok/s</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/result_columns.py" line="30"/>
        <source>overall_tps</source>
        <translation>总体 tok/s</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/result_columns.py" line="31"/>
        <source>prefill_tps</source>
        <translation>预填充 tok/s</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/result_columns.py" line="32"/>
        <source>tpot_ms</source>
        <translation>TPOT ms</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/result_columns.py" line="33"/>
        <source>itl_p50_ms</source>
        <translation>ITL p50 ms</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/result_columns.py" line="34"/>
        <source>itl_p90_ms</source>
        <translation>ITL p90 ms</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/result_columns.py" line="35"/>
        <source>itl_p99_ms</source>
        <translation>ITL p99 ms</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/result_columns.py" line="36"/>
        <source>network_baseline_ms</source>
        <translation>网络基线 ms</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/result_columns.py" line="37"/>
        <source>baseline_method</source>
        <translation>基线测量方式</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/result_columns.py" line="38"/>
        <source>cost_usd</source>
        <translation>费用（美元）</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/result_columns.py" line="39"/>
        <source>finish_reason</source>
        <translation>结束原因</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/result_columns.py" line="40"/>
        <source>needle_found</source>
        <translation>找到针</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/result_columns.py" line="41"/>
        <source>http_status</source>
        <translation>HTTP 状态码</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/result_columns.py" line="42"/>
        <source>error_class</source>
        <translation>错误类别</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/result_columns.py" line="43"/>
        <source>error_message</source>
        <translation>错误信息</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/result_columns.py" line="44"/>
        <source>repeat</source>
        <translation>重复序号</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/result_columns.py" line="45"/>
        <source>concurrency</source>
        <translation>并发</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/result_columns.py" line="46"/>
        <source>attempt</source>
        <translation>尝试次数</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/result_columns.py" line="47"/>
        <source>warmup</source>
        <translation>预热</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/result_columns.py" line="48"/>
        <source>price_known</source>
        <translation>价格已知</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/result_columns.py" line="49"/>
        <source>usage_suspect</source>
        <translation>用量存疑</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/result_columns.py" line="50"/>
        <source>phase</source>
        <translation>阶段</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/result_columns.py" line="51"/>
        <source>route</source>
        <translation>路由</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/result_columns.py" line="52"/>
        <source>dispatch_ms</source>
        <translation>发送耗时 ms</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/result_columns.py" line="53"/>
        <source>response_id</source>
        <translation>响应 ID</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/result_columns.py" line="54"/>
        <source>protocol</source>
        <translation>协议</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/result_columns.py" line="55"/>
        <source>cache_creation_tokens</source>
        <translation>缓存写入 Token 数</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/result_columns.py" line="56"/>
        <source>reasoning_tokens</source>
        <translation>推理 Token 数</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/result_columns.py" line="57"/>
        <source>scheduled_s</source>
        <translation>计划发送时刻 s</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/result_columns.py" line="58"/>
        <source>offered_rate</source>
        <translation>请求速率 req/s</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/result_columns.py" line="59"/>
        <source>ttft_from_scheduled_ms</source>
        <translation>自计划起 TTFT ms</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/result_columns.py" line="60"/>
        <source>e2e_from_scheduled_ms</source>
        <translation>自计划起端到端 ms</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/result_columns.py" line="61"/>
        <source>slo_met</source>
        <translation>达到 SLO</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/result_columns.py" line="63"/>
        <source>prompt</source>
        <translation>提示长度</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/result_columns.py" line="64"/>
        <source>n</source>
        <translation>请求数</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/result_columns.py" line="65"/>
        <source>errors</source>
        <translation>失败数</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/result_columns.py" line="66"/>
        <source>ttft_ms p50</source>
        <translation>TTFT ms p50</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/result_columns.py" line="67"/>
        <source>ttft_ms p10</source>
        <translation>TTFT ms p10</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/result_columns.py" line="68"/>
        <source>ttft_ms p90</source>
        <translation>TTFT ms p90</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/result_columns.py" line="69"/>
        <source>decode_tps p50</source>
        <translation>解码 tok/s p50</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/result_columns.py" line="70"/>
        <source>decode_tps p10</source>
        <translation>解码 tok/s p10</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/result_columns.py" line="71"/>
        <source>decode_tps p90</source>
        <translation>解码 tok/s p90</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/result_columns.py" line="72"/>
        <source>prefill_tps p50</source>
        <translation>预填充 tok/s p50</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/result_columns.py" line="73"/>
        <source>e2e_ms p50</source>
        <translation>端到端 ms p50</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/result_columns.py" line="74"/>
        <source>cost_usd p50</source>
        <translation>费用（美元）p50</translation>
    </message>
</context>
<context>
    <name>ResultFile</name>
    <message>
        <location filename="../../workbench/core/result_files/__init__.py" line="53"/>
        <source>a vLLM `bench serve --save-result` JSON, a guidellm benchmarks.json or .yaml, an AIPerf profile_export.jsonl, a GenAI-Perf profile_export.json, or an AIPerf / GenAI-Perf profile_export_*.json</source>
        <translation>vLLM `bench serve --save-result` 的 JSON、guidellm 的 benchmarks.json 或 .yaml、AIPerf 的 profile_export.jsonl、GenAI-Perf 的 profile_export.json，或 AIPerf / GenAI-Perf 的 profile_export_*.json</translation>
    </message>
    <message>
        <location filename="../../workbench/core/result_files/__init__.py" line="75"/>
        <source>{path} is a folder: pass the result file inside it</source>
        <translation>{path} 是文件夹：请选择其中的结果文件</translation>
    </message>
    <message>
        <location filename="../../workbench/core/result_files/__init__.py" line="79"/>
        <source>{error}: pass the result file itself</source>
        <translation>{error}：请选择结果文件本身</translation>
    </message>
    <message>
        <location filename="../../workbench/core/result_files/__init__.py" line="82"/>
        <source>{path} is larger than any result file ({limit} bytes): pass {formats}</source>
        <translation>{path} 比任何结果文件都大（{limit} 字节）：请选择{formats}</translation>
    </message>
    <message>
        <location filename="../../workbench/core/result_files/__init__.py" line="89"/>
        <source>cannot read {path} ({why}): check the path</source>
        <translation>无法读取 {path}（{why}）：请检查路径</translation>
    </message>
    <message>
        <location filename="../../workbench/core/result_files/__init__.py" line="95"/>
        <source>{path} is not a text file (not UTF-8): pass {formats}</source>
        <translation>{path} 不是文本文件（不是 UTF-8）：请选择{formats}</translation>
    </message>
    <message>
        <location filename="../../workbench/core/result_files/__init__.py" line="154"/>
        <source>{path} is in none of the result formats this app reads: pass {formats}</source>
        <translation>{path} 不属于本应用能读取的任何结果格式：请选择{formats}</translation>
    </message>
    <message>
        <location filename="../../workbench/core/result_files/__init__.py" line="211"/>
        <source>{path} is neither JSON, JSON Lines nor YAML ({why}): pass {formats}</source>
        <translation>{path} 既不是 JSON、JSON Lines，也不是 YAML（{why}）：请选择{formats}</translation>
    </message>
    <message>
        <location filename="../../workbench/core/result_files/_common.py" line="101"/>
        <source>{file}: field &apos;{field}&apos; {problem}: fix or remove that field, or re-export the file from the tool that wrote it</source>
        <translation>{file}：字段 &apos;{field}&apos; {problem}：请修正或删除该字段，或用生成它的工具重新导出文件</translation>
    </message>
    <message>
        <location filename="../../workbench/core/result_files/_common.py" line="118"/>
        <source>expected a number</source>
        <translation>应为数字</translation>
    </message>
    <message>
        <location filename="../../workbench/core/result_files/_common.py" line="127"/>
        <source>out of range (no benchmark figure exceeds {limit})</source>
        <translation>超出范围（任何基准数值都不超过 {limit}）</translation>
    </message>
    <message>
        <location filename="../../workbench/core/result_files/_common.py" line="136"/>
        <source>is {value}, {problem}</source>
        <translation>为 {value}，{problem}</translation>
    </message>
    <message>
        <location filename="../../workbench/core/result_files/_common.py" line="163"/>
        <source>is {value}, expected a token count</source>
        <translation>为 {value}，应为 Token 数</translation>
    </message>
    <message>
        <location filename="../../workbench/core/result_files/_common.py" line="171"/>
        <source>is {value}, expected text</source>
        <translation>为 {value}，应为文本</translation>
    </message>
    <message>
        <location filename="../../workbench/core/result_files/_common.py" line="179"/>
        <source>is a {type}, expected an object</source>
        <translation>为 {type}，应为对象</translation>
    </message>
    <message>
        <location filename="../../workbench/core/result_files/_common.py" line="186"/>
        <source>is {type}, expected a list</source>
        <translation>为 {type}，应为列表</translation>
    </message>
</context>
<context>
    <name>ResultValues</name>
    <message>
        <location filename="../../workbench/ui/result_columns.py" line="82"/>
        <source>true</source>
        <translation>是</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/result_columns.py" line="83"/>
        <source>false</source>
        <translation>否</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/result_columns.py" line="84"/>
        <source>measured</source>
        <translation>测量</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/result_columns.py" line="85"/>
        <source>calibration</source>
        <translation>校准</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/result_columns.py" line="86"/>
        <source>warmup</source>
        <translation>预热</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/result_columns.py" line="87"/>
        <source>summary</source>
        <translation>摘要</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/result_columns.py" line="88"/>
        <source>needle</source>
        <translation>大海捞针</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/result_columns.py" line="89"/>
        <source>stop</source>
        <translation>正常结束</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/result_columns.py" line="90"/>
        <source>length</source>
        <translation>达到长度上限</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/result_columns.py" line="91"/>
        <source>direct</source>
        <translation>直连</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/result_columns.py" line="92"/>
        <source>gateway</source>
        <translation>经网关</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/result_columns.py" line="93"/>
        <source>models</source>
        <translation>模型列表</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/result_columns.py" line="94"/>
        <source>chat</source>
        <translation>聊天请求</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/result_columns.py" line="108"/>
        <source>imported from %1</source>
        <translation>导入自 %1</translation>
    </message>
</context>
<context>
    <name>ResultsView</name>
    <message>
        <location filename="../../workbench/ui/results_view.py" line="118"/>
        <source>Results grouping</source>
        <translation>结果分组方式</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/results_view.py" line="119"/>
        <source>Per request</source>
        <translation>按请求</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/results_view.py" line="120"/>
        <source>Per model and prompt length (median, p10, p90)</source>
        <translation>按模型和提示词长度（中位数、p10、p90）</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/results_view.py" line="121"/>
        <source>Results table</source>
        <translation>结果表</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/results_view.py" line="122"/>
        <location filename="../../workbench/ui/results_view.py" line="133"/>
        <location filename="../../workbench/ui/results_view.py" line="175"/>
        <source>%1 requests</source>
        <translation>%1 个请求</translation>
    </message>
</context>
<context>
    <name>RunRow</name>
    <message>
        <location filename="../../workbench/ui/kernel_run_row.py" line="57"/>
        <source>Run</source>
        <translation>运行</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/kernel_run_row.py" line="58"/>
        <source>Cancel</source>
        <translation>取消</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/kernel_run_row.py" line="59"/>
        <source>Export CSV…</source>
        <translation>导出 CSV…</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/kernel_run_row.py" line="60"/>
        <source>Export charts…</source>
        <translation>导出图表…</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/kernel_run_row.py" line="73"/>
        <source>%1 of %2</source>
        <translation>%1 / %2</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/kernel_run_row.py" line="83"/>
        <source>Not started: see the message above.</source>
        <translation>未开始：原因见上方消息。</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/kernel_run_row.py" line="87"/>
        <source>Cancelled after %1 rows.</source>
        <translation>已取消（已完成 %1 行）。</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/kernel_run_row.py" line="99"/>
        <source>CPU (wall-clock): no CUDA device; the reference backend times on the CPU in %1 as chosen (fp32 runs faster there)</source>
        <translation>CPU（挂钟计时）：没有 CUDA 设备；参考后端按所选的 %1 在 CPU 上计时（fp32 在 CPU 上更快）</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/kernel_run_row.py" line="107"/>
        <source>%1 (CUDA events)</source>
        <translation>%1（CUDA 事件）</translation>
    </message>
</context>
<context>
    <name>RunStatus</name>
    <message>
        <location filename="../../workbench/ui/run_status.py" line="12"/>
        <source>running</source>
        <translation>运行中</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/run_status.py" line="13"/>
        <source>finished</source>
        <translation>已完成</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/run_status.py" line="14"/>
        <source>cancelled</source>
        <translation>已取消</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/run_status.py" line="15"/>
        <source>interrupted</source>
        <translation>已中断</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/run_status.py" line="16"/>
        <source>failed</source>
        <translation>失败</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/run_status.py" line="20"/>
        <source>, %1 failed</source>
        <translation>，%1 个失败</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/run_status.py" line="22"/>
        <source>, %1 stopped</source>
        <translation>，%1 个已停止</translation>
    </message>
</context>
<context>
    <name>RunToolbar</name>
    <message>
        <location filename="../../workbench/ui/run_toolbar.py" line="43"/>
        <source>Run</source>
        <translation>运行</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/run_toolbar.py" line="45"/>
        <source>Preset: real models (GQA vs MLA)</source>
        <translation>预设：真实模型（GQA 对比 MLA）</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/run_toolbar.py" line="46"/>
        <source>Preset: attention only (70B twins)</source>
        <translation>预设：仅注意力不同（70B 孪生模型）</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/run_toolbar.py" line="47"/>
        <source>Preset: attention story (8 twins)</source>
        <translation>预设：注意力全景（8 个孪生模型）</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/run_toolbar.py" line="48"/>
        <source>Preset: Gateway overhead (direct vs gateway)</source>
        <translation>预设：网关开销（直连 vs 网关）</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/run_toolbar.py" line="49"/>
        <source>Custom</source>
        <translation>自定义</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/run_toolbar.py" line="53"/>
        <source>Preset</source>
        <translation>预设</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/run_toolbar.py" line="54"/>
        <source> &amp;Panes </source>
        <translation> 窗格数(&amp;P) </translation>
    </message>
    <message>
        <location filename="../../workbench/ui/run_toolbar.py" line="55"/>
        <source>Run mode</source>
        <translation>运行方式</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/run_toolbar.py" line="56"/>
        <source>All at once</source>
        <translation>同时运行</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/run_toolbar.py" line="57"/>
        <source>One after another</source>
        <translation>依次运行</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/run_toolbar.py" line="58"/>
        <source>Run all</source>
        <translation>全部运行</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/run_toolbar.py" line="59"/>
        <source>Stop all</source>
        <translation>全部停止</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/run_toolbar.py" line="60"/>
        <source>Export CSV…</source>
        <translation>导出 CSV…</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/run_toolbar.py" line="61"/>
        <source>Export charts…</source>
        <translation>导出图表…</translation>
    </message>
</context>
<context>
    <name>SummaryPage</name>
    <message>
        <location filename="../../workbench/ui/summary_page.py" line="307"/>
        <location filename="../../workbench/ui/summary_page.py" line="374"/>
        <source>model</source>
        <translation>模型</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/summary_page.py" line="312"/>
        <location filename="../../workbench/ui/summary_page.py" line="345"/>
        <source>failed: %1</source>
        <translation>失败：%1</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/summary_page.py" line="316"/>
        <source>Time to first token</source>
        <translation>首 Token 延迟</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/summary_page.py" line="317"/>
        <source>TTFT (ms)</source>
        <translation>首 Token 延迟 (ms)</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/summary_page.py" line="325"/>
        <source>Decode speed</source>
        <translation>解码速度</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/summary_page.py" line="326"/>
        <source>decode (tokens/s)</source>
        <translation>解码（tokens/s）</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/summary_page.py" line="343"/>
        <source>stopped</source>
        <translation>已停止</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/summary_page.py" line="346"/>
        <source>no answer</source>
        <translation>无应答</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/summary_page.py" line="375"/>
        <source>attention</source>
        <translation>注意力</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/summary_page.py" line="376"/>
        <source>prompt</source>
        <translation>提示词</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/summary_page.py" line="377"/>
        <source>ok / failed / stopped</source>
        <translation>成功 / 失败 / 停止</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/summary_page.py" line="378"/>
        <source>TTFT ms</source>
        <translation>首 Token ms</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/summary_page.py" line="379"/>
        <source>decode tok/s</source>
        <translation>解码 tok/s</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/summary_page.py" line="380"/>
        <source>prefill tok/s</source>
        <translation>预填充 tok/s</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/summary_sentences.py" line="79"/>
        <source>decodes %1× faster than</source>
        <translation>解码快 %1×</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/summary_sentences.py" line="68"/>
        <source>%1 and concurrency %2</source>
        <translation>%1（并发 %2）</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/summary_sentences.py" line="83"/>
        <source>decodes %1× slower than</source>
        <translation>解码慢 %1×</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/summary_sentences.py" line="89"/>
        <source>costs %1 % less</source>
        <translation>成本低 %1 %</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/summary_sentences.py" line="91"/>
        <source>costs %1 % more</source>
        <translation>成本高 %1 %</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/summary_sentences.py" line="96"/>
        <source>about the same time to first token</source>
        <translation>首 Token 延迟大致相同</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/summary_sentences.py" line="99"/>
        <source>first token %1× %2</source>
        <translation>首 Token %2 %1×</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/summary_sentences.py" line="103"/>
        <source>sooner</source>
        <translation>快</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/summary_sentences.py" line="105"/>
        <source>later</source>
        <translation>慢</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/summary_sentences.py" line="109"/>
        <source>At %1 the %2 model &lt;b&gt;%3&lt;/b&gt; %4 the %5 model &lt;b&gt;%6&lt;/b&gt;</source>
        <translation>在 %1 提示词下，%2 模型 &lt;b&gt;%3&lt;/b&gt; 比 %5 模型 &lt;b&gt;%6&lt;/b&gt; %4</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/summary_sentences.py" line="119"/>
        <source>, </source>
        <translation>，</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/summary_sentences.py" line="120"/>
        <source> (%1)</source>
        <translation>（%1）</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/summary_sentences.py" line="123"/>
        <source>Only %1 request(s) each: too few to decide on; run with repeats.</source>
        <translation>每个模型仅 %1 个请求：不足以据此决定，请设置重复次数再运行。</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/summary_sentences.py" line="132"/>
        <source>At %1 the first token came soonest from &lt;b&gt;%2&lt;/b&gt;</source>
        <translation>在 %1 时，&lt;b&gt;%2&lt;/b&gt; 的首个 token 最早到达</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/summary_sentences.py" line="137"/>
        <source>; &lt;b&gt;%1&lt;/b&gt; decoded fastest</source>
        <translation>；&lt;b&gt;%1&lt;/b&gt; 解码最快</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/summary_sentences.py" line="139"/>
        <source>; %1 could not run (why: below)</source>
        <translation>；%1 无法运行（原因见下）</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/summary_sentences.py" line="146"/>
        <source>.</source>
        <comment>the full stop ending a sentence</comment>
        <translation>。</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/summary_sentences.py" line="154"/>
        <source>&lt;b&gt;%1&lt;/b&gt; could not run at %2: %3</source>
        <translation>&lt;b&gt;%1&lt;/b&gt; 在 %2 时无法运行：%3</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/summary_sentences.py" line="160"/>
        <source>&lt;b&gt;%1&lt;/b&gt; failed at %2: %3 of %4 requests (%5).</source>
        <translation>&lt;b&gt;%1&lt;/b&gt; 在 %2 时失败：%4 个请求中 %3 个失败（%5）。</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/summary_sentences.py" line="173"/>
        <source>&lt;b&gt;%1&lt;/b&gt; was stopped by the user at %2: %3 of %4 requests.</source>
        <translation>&lt;b&gt;%1&lt;/b&gt; 在 %2 时被用户停止：%4 个请求中 %3 个已停止。</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/summary_page.py" line="141"/>
        <source> vs </source>
        <translation> 对比 </translation>
    </message>
    <message>
        <location filename="../../workbench/ui/summary_page.py" line="142"/>
        <source>no measured requests</source>
        <translation>没有测量请求</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/summary_page.py" line="144"/>
        <source>Prompt-length sweep: %1</source>
        <translation>提示长度扫描：%1</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/summary_page.py" line="145"/>
        <source>Model comparison: %1</source>
        <translation>模型对比：%1</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/summary_page.py" line="150"/>
        <source>d MMMM yyyy, HH:mm</source>
        <translation>yyyy年M月d日 HH:mm</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/summary_page.py" line="154"/>
        <source> (servers counted a median of %1)</source>
        <translation>（服务器统计的中位数为 %1）</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/summary_page.py" line="158"/>
        <source>%1 · prompt length %2 tokens%3</source>
        <translation>%1 · 提示长度 %2 tokens%3</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/summary_page.py" line="173"/>
        <source>Medians over up to %1 request(s) per model and length; decode tok/s excludes the time to first token. Run %2, imported from %3.</source>
        <translation>每个模型和长度最多 %1 个请求的中位数；解码 tok/s 不含首 Token 延迟。运行 %2，导入自 %3。</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/summary_page.py" line="185"/>
        <source>Concurrency %1: up to %1 requests in flight at once.</source>
        <translation>并发 %1：同时最多 %1 个请求在途。</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/summary_page.py" line="210"/>
        <source>none stated in %1</source>
        <translation>%1 中未注明</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/summary_page.py" line="215"/>
        <source>Endpoint: %1</source>
        <translation>端点：%1</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/summary_page.py" line="216"/>
        <source>Endpoints: %1</source>
        <translation>端点：%1</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/summary_page.py" line="163"/>
        <source>Medians over up to %1 request(s) per model and length; decode tok/s excludes the time to first token. Run %2, measured with Attention Workbench.</source>
        <translation>每个模型和长度最多 %1 个请求的中位数；解码 tok/s 不含首 Token 延迟。运行 %2，由 Attention Workbench 测量。</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/summary_page.py" line="191"/>
        <source>Concurrency %1: medians over up to %2 request(s) per model, length and concurrency; the charts show concurrency %3. Decode tok/s excludes the time to first token. Run %4, measured with Attention Workbench.</source>
        <translation>并发 %1：每个模型、长度和并发各取至多 %2 个请求的中位数；图表显示并发 %3。解码 tok/s 不含首 token 时间。运行 %4，由 Attention Workbench 测量。</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/summary_page.py" line="222"/>
        <source>%1 by %2</source>
        <translation>%1（%2 生成）</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/summary_page.py" line="256"/>
        <source>Conclusion</source>
        <translation>结论</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/summary_page.py" line="305"/>
        <source>prompt length (tokens, log scale)</source>
        <translation>提示长度（tokens，对数刻度）</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/summary_page.py" line="310"/>
        <source>%1, at concurrency %2</source>
        <translation>%1（并发 %2）</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/summary_page.py" line="381"/>
        <source>$ / request</source>
        <translation>$ / 请求</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/summary_page.py" line="390"/>
        <source>concurrency</source>
        <translation>并发</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/summary_page.py" line="392"/>
        <source>req/s</source>
        <translation>req/s</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/summary_page.py" line="439"/>
        <source>Failed: %1</source>
        <translation>失败：%1</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/summary_page.py" line="522"/>
        <source>Attention Workbench — page %1 of %2</source>
        <translation>Attention Workbench — 第 %1 页，共 %2 页</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/summary_page.py" line="251"/>
        <source>Run a comparison of at least two models to see a conclusion.</source>
        <translation>至少对比两个模型后才能得出结论。</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/summary_sentences.py" line="27"/>
        <source>&lt;b&gt;%1&lt;/b&gt; at %2, imported from %3: %4 as the file reported; %5 derived.</source>
        <translation>&lt;b&gt;%1&lt;/b&gt; 在 %2，导入自 %3：%4 为文件所报告的数值；%5 为推算值。</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/summary_sentences.py" line="31"/>
        <source>&lt;b&gt;%1&lt;/b&gt; at %2, imported from %3: every figure derived from its requests (the file&apos;s own cover several rows).</source>
        <translation>&lt;b&gt;%1&lt;/b&gt; 在 %2，导入自 %3：所有数值均由其请求推算（文件自身的数值涵盖多行）。</translation>
    </message>
</context>
<context>
    <name>SummaryView</name>
    <message>
        <location filename="../../workbench/ui/summary_view.py" line="151"/>
        <source>Refresh from the latest results</source>
        <translation>按最新结果刷新</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/summary_view.py" line="152"/>
        <source>Export PNG…</source>
        <translation>导出 PNG…</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/summary_view.py" line="153"/>
        <source>Export PDF…</source>
        <translation>导出 PDF…</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/summary_view.py" line="154"/>
        <source>Run a comparison or a sweep: its summary appears here.</source>
        <translation>运行一次对比或扫描：摘要会显示在这里。</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/summary_view.py" line="155"/>
        <source>Paper</source>
        <translation>纸张</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/summary_view.py" line="156"/>
        <source>A4</source>
        <translation>A4</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/summary_view.py" line="156"/>
        <source>Letter</source>
        <translation>美式信纸</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/summary_view.py" line="169"/>
        <source>%1 (imported from %2): TTFT median %3 ms, mean %4 ms; decode median %5 tok/s</source>
        <translation>%1（从 %2 导入）：TTFT 中位数 %3 ms，平均 %4 ms；解码中位数 %5 tok/s</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/summary_view.py" line="177"/>
        <source>Imported results, the files&apos; own aggregates (no per-request rows):</source>
        <translation>导入的结果，文件自身的汇总（没有逐请求的行）：</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/summary_view.py" line="231"/>
        <source>Export summary</source>
        <translation>导出摘要</translation>
    </message>
</context>
<context>
    <name>SweepChoices</name>
    <message>
        <location filename="../../workbench/ui/kernel_choices.py" line="63"/>
        <source>Variants:</source>
        <translation>变体：</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/kernel_choices.py" line="64"/>
        <source>KV lengths:</source>
        <translation>KV 长度：</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/kernel_choices.py" line="65"/>
        <source>batch</source>
        <translation>批大小</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/kernel_choices.py" line="66"/>
        <source>query length</source>
        <translation>查询长度</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/kernel_choices.py" line="67"/>
        <source>dtype</source>
        <translation>dtype</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/kernel_choices.py" line="68"/>
        <source>backend</source>
        <translation>后端</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/kernel_choices.py" line="69"/>
        <source>timed launches</source>
        <translation>计时次数</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/kernel_choices.py" line="73"/>
        <source>auto</source>
        <translation>自动</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/kernel_choices.py" line="74"/>
        <source>Launches timed per row; auto: 5 on the CPU, 30 on a GPU</source>
        <translation>每行计时的启动次数；自动：CPU 上 5 次，GPU 上 30 次</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/kernel_choices.py" line="70"/>
        <source>roofline on</source>
        <translation>Roofline 硬件</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/kernel_choices.py" line="80"/>
        <source>%1 (%2 TB/s, %3 TFLOP/s)</source>
        <translation>%1 (%2 TB/s, %3 TFLOP/s)</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/kernel_choices.py" line="222"/>
        <source>the worker did not offer it</source>
        <translation>工作进程未提供该后端</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/kernel_choices.py" line="230"/>
        <source>Available backends are known once the worker has started.</source>
        <translation>工作进程启动后才能确定可用的后端。</translation>
    </message>
</context>
<context>
    <name>SweepView</name>
    <message>
        <location filename="../../workbench/ui/sweep_view.py" line="42"/>
        <source>TTFT (ms)</source>
        <translation>首 Token 延迟 (ms)</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/sweep_view.py" line="41"/>
        <source>Time to first token</source>
        <translation>首 Token 延迟</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/sweep_view.py" line="43"/>
        <source>Prefill speed</source>
        <translation>预填充速度</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/sweep_view.py" line="44"/>
        <source>prefill (tokens/s)</source>
        <translation>预填充（tokens/s）</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/sweep_view.py" line="45"/>
        <source>Decode speed</source>
        <translation>解码速度</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/sweep_view.py" line="46"/>
        <source>decode (tokens/s)</source>
        <translation>解码（tokens/s）</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/sweep_view.py" line="136"/>
        <source>Prompt lengths:</source>
        <translation>提示词长度：</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/sweep_view.py" line="137"/>
        <source>repeats</source>
        <translation>重复次数</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/sweep_view.py" line="138"/>
        <source>concurrency</source>
        <translation>并发</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/sweep_view.py" line="139"/>
        <source>Concurrency levels</source>
        <translation>并发级别</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/sweep_view.py" line="142"/>
        <source>Requests in flight per model; several levels (1,4,16) run in turn and the charts show concurrency on the x axis</source>
        <translation>每个模型同时进行的请求数；多个级别（1,4,16）依次运行，图表的横轴显示并发</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/sweep_view.py" line="146"/>
        <source>Run sweep</source>
        <translation>运行扫描</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/sweep_view.py" line="149"/>
        <source>Cancel</source>
        <translation>取消</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/sweep_view.py" line="181"/>
        <source>Concurrency: type levels from 1 to %1 separated by commas, e.g. 1,4,16.</source>
        <translation>并发：输入 1 到 %1 之间的级别，用逗号分隔，例如 1,4,16。</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/sweep_view.py" line="333"/>
        <source>%1 (imported from %2)</source>
        <translation>%1（从 %2 导入）</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/sweep_view.py" line="358"/>
        <source>concurrency (requests in flight, log scale)</source>
        <translation>并发（同时进行的请求数，对数刻度）</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/sweep_view.py" line="360"/>
        <source>prompt tokens (log scale)</source>
        <translation>提示 tokens（对数刻度）</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/sweep_view.py" line="422"/>
        <source>line: median; bar: p10–p90 over %1 repeat(s)</source>
        <translation>线：中位数；竖条：%1 次重复的 p10–p90</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/sweep_view.py" line="424"/>
        <source>line: median; shaded: p10–p90 over %1 repeat(s)</source>
        <translation>线：中位数；阴影：%1 次重复的 p10–p90</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/sweep_view.py" line="427"/>
        <source>; ◇ imported: the file&apos;s own median (its mean where it has none)</source>
        <translation>；◇ 导入：文件自身的中位数（没有时为平均值）</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/sweep_view.py" line="177"/>
        <source>Pick at least one prompt length.</source>
        <translation>请至少选择一个提示词长度。</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/sweep_view.py" line="195"/>
        <source>, ETA %1 s</source>
        <translation>，预计剩余 %1 s</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/sweep_view.py" line="197"/>
        <source>%1 of %2 requests%3</source>
        <translation>%1 / %2 个请求%3</translation>
    </message>
</context>
<context>
    <name>Validation</name>
    <message>
        <location filename="../../workbench/core/foundation/validation.py" line="67"/>
        <source>true/false</source>
        <translation>true/false（布尔值）</translation>
    </message>
    <message>
        <location filename="../../workbench/core/foundation/validation.py" line="68"/>
        <location filename="../../workbench/core/foundation/validation.py" line="131"/>
        <source>a whole number</source>
        <translation>整数</translation>
    </message>
    <message>
        <location filename="../../workbench/core/foundation/validation.py" line="69"/>
        <location filename="../../workbench/core/foundation/validation.py" line="132"/>
        <source>a number</source>
        <translation>数字</translation>
    </message>
    <message>
        <location filename="../../workbench/core/foundation/validation.py" line="70"/>
        <location filename="../../workbench/core/importers/_shapes.py" line="85"/>
        <location filename="../../workbench/core/importers/_shapes.py" line="93"/>
        <source>text</source>
        <translation>文本</translation>
    </message>
    <message>
        <location filename="../../workbench/core/foundation/validation.py" line="71"/>
        <location filename="../../workbench/core/foundation/validation.py" line="136"/>
        <source>a list</source>
        <translation>列表</translation>
    </message>
    <message>
        <location filename="../../workbench/core/foundation/validation.py" line="72"/>
        <source>a table/object</source>
        <translation>表/对象</translation>
    </message>
    <message>
        <location filename="../../workbench/core/foundation/validation.py" line="130"/>
        <source>text in quotes</source>
        <translation>带引号的文本</translation>
    </message>
    <message>
        <location filename="../../workbench/core/foundation/validation.py" line="133"/>
        <source>true or false</source>
        <translation>true 或 false</translation>
    </message>
    <message>
        <location filename="../../workbench/core/foundation/validation.py" line="134"/>
        <location filename="../../workbench/core/foundation/validation.py" line="135"/>
        <source>a table</source>
        <translation>表</translation>
    </message>
    <message>
        <location filename="../../workbench/core/importers/_shapes.py" line="30"/>
        <source>is empty</source>
        <translation>为空</translation>
    </message>
    <message>
        <location filename="../../workbench/core/importers/_shapes.py" line="31"/>
        <source>must be a model id (text)</source>
        <translation>必须是模型 ID（文本）</translation>
    </message>
    <message>
        <location filename="../../workbench/core/importers/_shapes.py" line="32"/>
        <source>not an attention type like GQA or MLA</source>
        <translation>不是 GQA、MLA 这样的注意力类型</translation>
    </message>
    <message>
        <location filename="../../workbench/core/importers/_shapes.py" line="33"/>
        <source>must be a whole number &gt;= 1, found {value}</source>
        <translation>必须是 &gt;= 1 的整数，实际为 {value}</translation>
    </message>
    <message>
        <location filename="../../workbench/core/importers/_shapes.py" line="34"/>
        <source>must be a number &gt;= {minimum}, found {value}</source>
        <translation>必须是 &gt;= {minimum} 的数字，实际为 {value}</translation>
    </message>
    <message>
        <location filename="../../workbench/core/importers/_shapes.py" line="90"/>
        <source>a model id (text)</source>
        <translation>模型 ID（文本）</translation>
    </message>
    <message>
        <location filename="../../workbench/core/importers/_shapes.py" line="97"/>
        <source>the name of an environment variable</source>
        <translation>环境变量名</translation>
    </message>
    <message>
        <location filename="../../workbench/core/importers/_shapes.py" line="134"/>
        <source>a number &gt;= 0</source>
        <translation>&gt;= 0 的数字</translation>
    </message>
    <message>
        <location filename="../../workbench/core/importers/_shapes.py" line="141"/>
        <source>a number &gt;= 0.001</source>
        <translation>&gt;= 0.001 的数字</translation>
    </message>
    <message>
        <location filename="../../workbench/core/importers/_shapes.py" line="148"/>
        <source>a number &gt;= 1</source>
        <translation>&gt;= 1 的数字</translation>
    </message>
    <message>
        <location filename="../../workbench/core/importers/_shapes.py" line="155"/>
        <source>a whole number &gt;= 1</source>
        <translation>&gt;= 1 的整数</translation>
    </message>
    <message>
        <location filename="../../workbench/core/importers/_shapes.py" line="172"/>
        <source>an attention type like GQA or MLA</source>
        <translation>GQA、MLA 这样的注意力类型</translation>
    </message>
    <message>
        <location filename="../../workbench/core/importers/_shapes.py" line="187"/>
        <source>an object of headers</source>
        <translation>请求头对象</translation>
    </message>
    <message>
        <location filename="../../workbench/core/importers/benchmark.py" line="78"/>
        <source>an object of models or a list of model ids</source>
        <translation>模型对象或模型 ID 列表</translation>
    </message>
    <message>
        <location filename="../../workbench/core/importers/ccswitch.py" line="129"/>
        <source>a URL</source>
        <translation>URL</translation>
    </message>
    <message>
        <location filename="../../workbench/core/importers/ccswitch.py" line="142"/>
        <source>tables</source>
        <translation>表</translation>
    </message>
    <message>
        <location filename="../../workbench/core/importers/ccswitch.py" line="192"/>
        <source>the text of a Codex config.toml</source>
        <translation>Codex config.toml 的文本</translation>
    </message>
    <message>
        <location filename="../../workbench/core/importers/ccswitch.py" line="339"/>
        <source>a JSON object</source>
        <translation>JSON 对象</translation>
    </message>
    <message>
        <location filename="../../workbench/core/importers/ccswitch.py" line="346"/>
        <location filename="../../workbench/core/importers/cline.py" line="83"/>
        <source>an object of providers</source>
        <translation>服务商对象</translation>
    </message>
    <message>
        <location filename="../../workbench/core/importers/ccswitch_toml.py" line="43"/>
        <source>tables like [provider.taotoken]</source>
        <translation>[provider.taotoken] 这样的表</translation>
    </message>
    <message>
        <location filename="../../workbench/core/importers/toml_client.py" line="94"/>
        <source>tables like [models.gqa]</source>
        <translation>[models.gqa] 这样的表</translation>
    </message>
</context>
<context>
    <name>WorkerRow</name>
    <message>
        <location filename="../../workbench/ui/kernel_worker_row.py" line="81"/>
        <source>Worker:</source>
        <translation>工作进程：</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/kernel_worker_row.py" line="83"/>
        <source>Auto-detect a Python with torch</source>
        <translation>自动查找带 torch 的 Python</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/kernel_worker_row.py" line="84"/>
        <source>This Python</source>
        <translation>当前 Python</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/kernel_worker_row.py" line="85"/>
        <source>Connect to HOST:PORT</source>
        <translation>连接到 主机:端口</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/kernel_worker_row.py" line="88"/>
        <source>Worker Python</source>
        <translation>工作进程的 Python</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/kernel_worker_row.py" line="89"/>
        <source>path of a Python interpreter that has torch</source>
        <translation>装有 torch 的 Python 解释器路径</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/kernel_worker_row.py" line="90"/>
        <source>Worker address</source>
        <translation>工作进程地址</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/kernel_worker_row.py" line="91"/>
        <source>127.0.0.1:7777 (an SSH tunnel to the GPU box)</source>
        <translation>127.0.0.1:7777（通往 GPU 机器的 SSH 隧道）</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/kernel_worker_row.py" line="92"/>
        <source>Worker token</source>
        <translation>工作进程令牌</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/kernel_worker_row.py" line="93"/>
        <source>token</source>
        <translation>令牌</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/kernel_worker_row.py" line="94"/>
        <source>Connect</source>
        <translation>连接</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/kernel_worker_row.py" line="71"/>
        <source>No worker yet: it starts on Run or Connect.</source>
        <translation>尚无工作进程：点击“运行”或“连接”时启动。</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/kernel_worker_row.py" line="117"/>
        <source>Enter the path of a Python interpreter that has torch.</source>
        <translation>请输入装有 torch 的 Python 解释器路径。</translation>
    </message>
    <message>
        <location filename="../../workbench/ui/kernel_worker_row.py" line="124"/>
        <source>Enter the worker&apos;s address as HOST:PORT, e.g. 127.0.0.1:7777.</source>
        <translation>请按 主机:端口 格式输入工作进程地址，例如 127.0.0.1:7777。</translation>
    </message>
</context>
</TS>
